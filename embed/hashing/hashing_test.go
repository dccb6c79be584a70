package hashing_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/internal/vectors"
)

func TestHashingSimilarity(t *testing.T) {
	tests := []struct {
		name    string
		a, b    string
		atLeast float64 // minimum cosine
		atMost  float64 // maximum cosine
	}{
		{"identical", "Alice works at Kakao", "Alice works at Kakao", 0.999, 1.001},
		{"case-insensitive", "Alice works at Kakao", "alice WORKS at kakao", 0.999, 1.001},
		{"near duplicate", "Alice works at Kakao", "Alice worked at Kakao", 0.6, 1},
		{"typo", "Naver Cloud", "Naver Clowd", 0.5, 1},
		{"unrelated", "Alice works at Kakao", "the weather is gloomy in Seattle", -1, 0.3},
		{"korean near", "지훈은 카카오에서 일한다", "지훈은 카카오에서 일했다", 0.6, 1},
		{"korean particle", "카카오에서", "카카오", 0.2, 1},
		{"korean unrelated", "지훈은 카카오에서 일한다", "수아는 부산에 산다", -1, 0.3},
	}
	h := hashing.Embedder{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Embed(context.Background(), []string{tt.a, tt.b})
			if err != nil {
				t.Fatal(err)
			}
			c := vectors.Cosine(v[0], v[1])
			if c < tt.atLeast || c > tt.atMost {
				t.Errorf("cosine(%q, %q) = %.3f, want in [%.2f, %.2f]", tt.a, tt.b, c, tt.atLeast, tt.atMost)
			}
		})
	}
}

func TestHashingShapeAndNorm(t *testing.T) {
	tests := []struct {
		dims, want int
	}{{0, 256}, {-3, 256}, {64, 64}, {1536, 1536}}
	for _, tt := range tests {
		h := hashing.Embedder{Dims: tt.dims}
		if h.Dimensions() != tt.want || h.Model() != "hashing-v1" {
			t.Fatalf("hashing.Embedder{%d}: dims %d model %q", tt.dims, h.Dimensions(), h.Model())
		}
		vs, err := h.Embed(context.Background(), []string{"Pangyo 판교", "", "!!!"})
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 3 {
			t.Fatalf("got %d vectors", len(vs))
		}
		for i, v := range vs {
			if len(v) != tt.want {
				t.Fatalf("vector %d has %d dims, want %d", i, len(v), tt.want)
			}
		}
		var n float64
		for _, f := range vs[0] {
			n += float64(f) * float64(f)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("norm² = %f, want 1", n)
		}
		for _, f := range vs[1] {
			if f != 0 {
				t.Fatal("empty text should give the zero vector")
			}
		}
	}
}

func TestHashingDeterministic(t *testing.T) {
	h := hashing.Embedder{Dims: 32}
	a, _ := h.Embed(context.Background(), []string{"보고서는 금요일까지 끝낼 거예요"})
	b, _ := h.Embed(context.Background(), []string{"보고서는 금요일까지 끝낼 거예요"})
	for i := range a[0] {
		if a[0][i] != b[0][i] {
			t.Fatalf("dimension %d differs: %v vs %v", i, a[0][i], b[0][i])
		}
	}
}

func TestHashingCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (hashing.Embedder{}).Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

var _ embed.Embedder = hashing.Embedder{}
