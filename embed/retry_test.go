package embed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
)

// truncating cuts the first n answers of f in half.
type truncating struct {
	f *fakeEmbeddings
	n atomic.Int64
}

func (t *truncating) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if t.n.Add(-1) < 0 {
		t.f.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	t.f.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	_, _ = w.Write(body[:len(body)/2])
}

func TestEmbedRetriesMalformedAnswers(t *testing.T) {
	for _, tt := range []struct {
		name     string
		bad      int64
		requests int64
		want     string
	}{
		{"one bad answer", 1, 2, ""},
		{"two bad answers", 2, 3, ""},
		{"always bad", 9, 3, "invalid after 3 attempts"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &truncating{f: &fakeEmbeddings{}}
			h.n.Store(tt.bad)
			mem := cache.NewMemory()
			c := newClient(t, h, mem, func(o *Options) {
				o.Model = "text-embedding-3-small"
				o.Budget = pacing.NewBudget(1)
			})
			got, err := c.Embed(context.Background(), []string{"alpha", "beta"})
			u := c.Usage()
			if u.Requests != tt.requests || u.InvalidAnswers != min(tt.bad, 3) || u.Retries != tt.requests-1 {
				t.Fatalf("usage %+v", u)
			}
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) || mem.Len() != 0 {
					t.Fatalf("error %v, %d cached", err, mem.Len())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkVectors(t, []string{"alpha", "beta"}, got, 4)
			// The fake reports 2 tokens per text; a cut answer has no readable usage.
			if want := 4 * 0.02 / 1e6; u.CostUSD < want*0.999 || u.CostUSD > want*1.001 || u.PromptTokens != 4 {
				t.Fatalf("cost %v tokens %d, want %v", u.CostUSD, u.PromptTokens, want)
			}
		})
	}
}
