package embed

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// fakeEmbedder returns [len(text), first byte] for each text and records each request's size;
// with short set it drops the last vector of every request.
type fakeEmbedder struct {
	requests []int
	short    bool
}

func (f *fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	f.requests = append(f.requests, len(texts))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), float32(t[0])}
	}
	if f.short {
		out = out[:len(out)-1]
	}
	return out, nil
}
func (f *fakeEmbedder) Dimensions() int { return 2 }
func (f *fakeEmbedder) Model() string   { return "fake-embed" }

// seed stores a group of n entities and n-1 facts and records its summarize unit.
func seed(t *testing.T, n int) *checkpoints.Store {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ep := graph.Episode{UUID: "e1", GroupID: "g", Source: graph.SourceText, ReferenceTime: t0}
	if _, err := store.UpsertEpisodes(ctx, []graph.Episode{ep}, t0); err != nil {
		t.Fatal(err)
	}
	var ents []graph.Entity
	var facts []graph.Fact
	for i := range n {
		ents = append(ents, graph.Entity{UUID: fmt.Sprintf("n%03d", i), GroupID: "g", Name: fmt.Sprintf("Name %d", i)})
		if i > 0 {
			facts = append(facts, graph.Fact{UUID: fmt.Sprintf("f%03d", i), GroupID: "g", SourceUUID: "n000", TargetUUID: ents[i].UUID,
				Name: "KNOWS", Fact: fmt.Sprintf("Name 0 knows name %d well", i), ReferenceTime: t0, CreatedAt: t0})
		}
	}
	if err := store.CommitUnit(ctx, stages.Summarize, "g", "fp-summarize", func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", ents, nil); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, "g", facts, nil)
	}); err != nil {
		t.Fatal(err)
	}
	return store
}

func TestEmbedWritesEveryVectorInChunks(t *testing.T) {
	defer func(n int) { chunkTexts = n }(chunkTexts)
	chunkTexts = 4
	ctx := context.Background()
	store := seed(t, 6) // 6 names and 5 facts: chunks of 4, 4 and 3
	f := &fakeEmbedder{}
	env := stages.Env{Store: store, Embedder: f, Concurrency: 1}
	st, err := Run(ctx, env)
	if err != nil || st.Units != 1 {
		t.Fatalf("Run = %+v, %v", st, err)
	}
	if !slices.Equal(f.requests, []int{4, 4, 3}) {
		t.Errorf("requests %v, want chunks of 4, 4, 3", f.requests)
	}
	want := func(text string) []float32 { return []float32{float32(len(text)), float32(text[0])} }
	ents := 0
	if err := store.EachEntity(ctx, "g", func(e graph.Entity) error {
		ents++
		if !slices.Equal(e.NameEmbedding, want(e.Name)) {
			t.Errorf("entity %s: embedding %v, want %v", e.Name, e.NameEmbedding, want(e.Name))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	facts := 0
	if err := store.EachFact(ctx, "g", func(x graph.Fact) error {
		facts++
		if !slices.Equal(x.Embedding, want(x.Fact)) {
			t.Errorf("fact %s: embedding %v, want %v", x.UUID, x.Embedding, want(x.Fact))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ents != 6 || facts != 5 {
		t.Fatalf("read %d entities and %d facts", ents, facts)
	}
	// Nothing changed upstream: the group is skipped without a request.
	if st, err := Run(ctx, env); err != nil || st.Skipped != 1 || st.Units != 0 || len(f.requests) != 3 {
		t.Errorf("re-run = %+v, %v, requests %v", st, err, f.requests)
	}
	// Another embedding model re-embeds the group.
	if st, err := Run(ctx, stages.Env{Store: store, Embedder: &otherModel{f}, Concurrency: 1}); err != nil || st.Units != 1 {
		t.Errorf("run with another model = %+v, %v", st, err)
	}
}

type otherModel struct{ *fakeEmbedder }

func (otherModel) Model() string { return "other-embed" }

func TestEmbedRejectsAShortAnswer(t *testing.T) {
	ctx := context.Background()
	store := seed(t, 3)
	_, err := Run(ctx, stages.Env{Store: store, Embedder: &fakeEmbedder{short: true}, Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "group g") || !strings.Contains(err.Error(), "4 vectors for 5 texts") {
		t.Fatalf("err = %v, want the group and the count mismatch", err)
	}
	units, err := store.Fingerprints(ctx, Stage)
	if err != nil {
		t.Fatal(err)
	}
	if len(units) != 0 {
		t.Errorf("a failed group was recorded: %v", units)
	}
}
