package localembed

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/internal/vectors"
)

// TestLocalEmbedderSmoke embeds sentences through the embeddings client and checks the vectors.
func TestLocalEmbedderSmoke(t *testing.T) {
	m := testenv.LocalEmbedder(t)
	c := embed.NewClient(embed.Options{BaseURL: m.URL, Model: m.Model, Dimensions: 384, Timeout: time.Minute}, nil, nil)
	texts := []string{
		// sentence-transformers' quick start for all-MiniLM-L6-v2 documents the similarities
		// of these three: 0.6660, 0.1046, 0.1411.
		"The weather is lovely today.",
		"It's so sunny outside!",
		"He drove to the stadium.",
		// two paraphrases, and two sentences unrelated to each other
		"Alice moved to Busan last spring.",
		"Last spring Alice relocated to Busan.",
		"The invoice total is forty dollars.",
		"My cat sleeps on the windowsill.",
	}
	vecs, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatalf("embedding: %v", err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != 384 || math.Abs(math.Sqrt(n)-1) > 1e-4 {
			t.Errorf("text %d: %d dimensions, norm %.6f; want 384, 1", i, len(v), math.Sqrt(n))
		}
	}
	for _, want := range []struct {
		a, b int
		cos  float64
	}{{0, 1, 0.6660}, {0, 2, 0.1046}, {1, 2, 0.1411}} {
		if got := vectors.Cosine(vecs[want.a], vecs[want.b]); math.Abs(got-want.cos) > 1e-3 {
			t.Errorf("cosine(%q, %q) = %.4f, want %.4f (sentence-transformers' quick start)", texts[want.a], texts[want.b], got, want.cos)
		}
	}
	para, unrelated := vectors.Cosine(vecs[3], vecs[4]), vectors.Cosine(vecs[5], vecs[6])
	t.Logf("paraphrases %.3f, unrelated %.3f", para, unrelated)
	if para <= unrelated {
		t.Errorf("paraphrases at cosine %.3f, not above the unrelated sentences' %.3f", para, unrelated)
	}
	if u := c.Usage(); u.PromptTokens == 0 {
		t.Errorf("usage %+v: the server reported no tokens", u)
	}
}
