package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// fakeEmbeddings answers /embeddings with vectors derived from each text (its length and its
// first byte, padded to the requested dimensions), in reverse index order, and records batches.
type fakeEmbeddings struct {
	mu      sync.Mutex
	batches [][]string
	dims    []int
	status  int // when not 0, every answer fails with it
	extra   int // vectors added beyond the inputs
	cur     int
	peak    int
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" {
		http.NotFound(w, r)
		return
	}
	var req wire.EmbeddingsRequest
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &req)
	f.mu.Lock()
	f.batches = append(f.batches, req.Input)
	f.dims = append(f.dims, req.Dimensions)
	f.cur++
	f.peak = max(f.peak, f.cur)
	status, extra := f.status, f.extra
	f.mu.Unlock()
	time.Sleep(5 * time.Millisecond)
	f.mu.Lock()
	f.cur--
	f.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"message":"auth %s"}}`, r.Header.Get("Authorization"))
		return
	}
	dims := max(req.Dimensions, 3)
	var resp wire.EmbeddingsResponse
	for i := len(req.Input) - 1 + extra; i >= 0; i-- {
		text := req.Input[min(i, len(req.Input)-1)]
		resp.Data = append(resp.Data, wire.EmbeddingData{Index: i, Embedding: vectorOf(text, dims)})
	}
	resp.Usage = &wire.TokenUsage{PromptTokens: 2 * len(req.Input)}
	_ = json.NewEncoder(w).Encode(resp)
}

func vectorOf(text string, dims int) []float32 {
	v := make([]float32, dims)
	v[0], v[1] = float32(len(text)), float32(text[0])
	return v
}

func (f *fakeEmbeddings) sizes() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []int
	for _, b := range f.batches {
		out = append(out, len(b))
	}
	slices.Sort(out)
	return out
}

func newClient(t *testing.T, f http.Handler, mem Cache, tweak func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := Options{BaseURL: srv.URL + "/v1", Model: "emb", APIKey: "sk-e", Dimensions: 4,
		BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond}
	if tweak != nil {
		tweak(&opts)
	}
	return NewClient(opts, srv.Client(), mem)
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%c text %d", 'a'+i%26, i)
	}
	return out
}

func checkVectors(t *testing.T, in []string, got [][]float32, dims int) {
	t.Helper()
	if len(got) != len(in) {
		t.Fatalf("%d vectors for %d texts", len(got), len(in))
	}
	for i, text := range in {
		if want := vectorOf(text, dims); !slices.Equal(got[i], want) {
			t.Fatalf("vector %d = %v, want %v", i, got[i], want)
		}
	}
}

func TestEmbedBatchesInOrder(t *testing.T) {
	for _, tt := range []struct {
		name  string
		n     int
		batch int
		want  []int
	}{
		{"default batch", 600, 0, []int{88, 256, 256}},
		{"small batches", 10, 4, []int{2, 4, 4}},
		{"one", 1, 0, []int{1}},
		{"none", 0, 0, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeEmbeddings{}
			c := newClient(t, f, nil, func(o *Options) { o.BatchSize = tt.batch })
			in := texts(tt.n)
			got, err := c.Embed(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			checkVectors(t, in, got, 4)
			if !slices.Equal(f.sizes(), tt.want) {
				t.Fatalf("batch sizes %v, want %v", f.sizes(), tt.want)
			}
			for _, d := range f.dims {
				if d != 4 {
					t.Fatalf("dimensions %d sent", d)
				}
			}
		})
	}
}

func TestEmbedDeduplicatesAndCaches(t *testing.T) {
	f := &fakeEmbeddings{}
	mem := cache.NewMemory()
	c := newClient(t, f, mem, nil)
	ctx := context.Background()
	in := []string{"apple", "pear", "apple", "fig"}
	got, err := c.Embed(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 4)
	if !slices.Equal(f.sizes(), []int{3}) || mem.Len() != 3 {
		t.Fatalf("batches %v, %d cached", f.sizes(), mem.Len())
	}
	e, ok, _ := mem.Get(ctx, CacheKey("emb", 4, "pear"))
	if !ok || e.Namespace != "embed" || len(e.Response) != 16 {
		t.Fatalf("cache entry %+v", e)
	}
	// All cached: no request. Partly cached: only the new text is sent.
	if got, err = c.Embed(ctx, []string{"fig", "apple"}); err != nil || len(f.sizes()) != 1 {
		t.Fatalf("cached call: %v, batches %v", err, f.sizes())
	}
	checkVectors(t, []string{"fig", "apple"}, got, 4)
	in = []string{"kiwi", "pear"}
	if got, err = c.Embed(ctx, in); err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 4)
	f.mu.Lock()
	last := f.batches[len(f.batches)-1]
	f.mu.Unlock()
	if !slices.Equal(last, []string{"kiwi"}) {
		t.Fatalf("sent %v, want only kiwi", last)
	}
	u := c.Usage()
	if u.Requests != 2 || u.Texts != 4 || u.CacheHits != 3 || u.PromptTokens != 8 {
		t.Fatalf("usage %+v", u)
	}
}

func TestEmbedLearnsDimensions(t *testing.T) {
	f := &fakeEmbeddings{}
	c := newClient(t, f, nil, func(o *Options) { o.Dimensions = 0 })
	if c.Dimensions() != 0 {
		t.Fatal("dimensions known before any answer")
	}
	if _, err := c.Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if c.Dimensions() != 3 || f.dims[0] != 0 {
		t.Fatalf("dimensions %d, sent %v", c.Dimensions(), f.dims)
	}
}

func TestEmbedErrors(t *testing.T) {
	const key = "sk-planted-e5e5e5"
	for _, tt := range []struct {
		name  string
		f     *fakeEmbeddings
		dims  int
		in    []string
		want  string
		fatal bool
	}{
		{"auth", &fakeEmbeddings{status: 401}, 4, []string{"a"}, "authentication failed", true},
		{"too many vectors", &fakeEmbeddings{extra: 1}, 4, []string{"a", "b"}, "3 vectors for 2 texts", false},
		{"wrong size", &fakeEmbeddings{}, 2, []string{"a"}, "has 3 dimensions, want 2", false},
		{"empty text", &fakeEmbeddings{}, 4, []string{"a", ""}, "text 1: empty", false},
		{"bad request", &fakeEmbeddings{status: 400}, 4, []string{"a"}, "HTTP 400", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mem := cache.NewMemory()
			c := newClient(t, tt.f, mem, func(o *Options) { o.Dimensions = tt.dims; o.APIKey = key })
			// The fake pads to at least 3 dimensions, so dims 2 gets 3-float vectors.
			_, err := c.Embed(context.Background(), tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) || transport.IsFatal(err) != tt.fatal {
				t.Fatalf("error = %v, want %q (fatal %v)", err, tt.want, tt.fatal)
			}
			if strings.Contains(err.Error(), key) {
				t.Fatalf("key leaked: %v", err)
			}
			if mem.Len() != 0 {
				t.Fatal("failed answer cached")
			}
		})
	}
}

func TestEmbedConcurrencyBound(t *testing.T) {
	f := &fakeEmbeddings{}
	c := newClient(t, f, nil, func(o *Options) { o.BatchSize = 2; o.Concurrency = 2 })
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			if _, err := c.Embed(context.Background(), texts(20)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if f.peak > 2 || c.Usage().MaxInFlight > 2 || c.Usage().MaxInFlight < 1 {
		t.Fatalf("server peak %d, client peak %d", f.peak, c.Usage().MaxInFlight)
	}
}

func TestEmbedInProcess(t *testing.T) {
	f := &fakeEmbeddings{}
	c := NewClient(Options{BaseURL: "http://offline/v1", Model: "m", Dimensions: 5}, transport.NewInProcessHTTPClient(f), nil)
	in := texts(7)
	got, err := c.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, got, 5)
}

func TestEmbedCancelled(t *testing.T) {
	f := &fakeEmbeddings{}
	c := newClient(t, f, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Embed(ctx, texts(3)); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v", err)
	}
}

func TestPackVector(t *testing.T) {
	v := []float32{1.5, -2, 0, 3.25e-7}
	back, ok := unpackVector(packVector(v))
	if !ok || !slices.Equal(back, v) {
		t.Fatalf("round trip %v", back)
	}
	for _, b := range [][]byte{nil, {1, 2, 3}} {
		if _, ok := unpackVector(b); ok {
			t.Errorf("unpacked %v", b)
		}
	}
	if CacheKey("m", 4, "a") == CacheKey("m", 5, "a") || CacheKey("m", 4, "a") == CacheKey("n", 4, "a") {
		t.Fatal("cache key ignores model or dimensions")
	}
}
