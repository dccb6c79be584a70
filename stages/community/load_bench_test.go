package community

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// BenchmarkLoadGraph reads one group of 100k facts between 20k entities, with 256-dimension
// embeddings as the embed stage leaves them, into the partitioning graph.
func BenchmarkLoadGraph(b *testing.B) {
	const nEnt, nFact, dims = 20_000, 100_000, 256
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(b.TempDir(), "cp.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, dims)
		for i := range v {
			v[i] = rng.Float32()
		}
		return v
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ents := make([]graph.Entity, nEnt)
	for i := range ents {
		ents[i] = graph.Entity{UUID: fmt.Sprintf("n%06d", i), GroupID: "g", Name: fmt.Sprintf("Entity %d", i),
			Summary: "a summary of a few words", CreatedAt: t0, NameEmbedding: vec()}
	}
	facts := make([]graph.Fact, nFact)
	for i := range facts {
		a, c := rng.IntN(nEnt), rng.IntN(nEnt)
		facts[i] = graph.Fact{UUID: fmt.Sprintf("f%07d", i), GroupID: "g", SourceUUID: ents[a].UUID, TargetUUID: ents[c].UUID,
			Name: "KNOWS", Fact: fmt.Sprintf("Entity %d knows entity %d from work.", a, c), Episodes: []string{"e1", "e2"},
			CreatedAt: t0, ReferenceTime: t0, Embedding: vec()}
	}
	if err := store.Write(ctx, func(tx *checkpoints.Tx) error {
		if err := tx.ReplaceEntities(ctx, "g", ents, nil); err != nil {
			return err
		}
		return tx.ReplaceFacts(ctx, "g", facts, nil)
	}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		g, err := loadGraph(ctx, store, "g", false)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(g.edges)), "edges")
	}
}
