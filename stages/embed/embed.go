package embed

import (
	"context"
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/stages"
)

// Stage is the name of the stage in the store and in reports.
const Stage = stages.Embed

// chunkTexts is how many texts of a group are embedded and written at a time: it bounds the
// vectors held in memory (4,096 × 1,024 dimensions × 4 bytes = 16 MiB).
var chunkTexts = 4096

// key is the stage's part of its unit fingerprints (stages.Key): the embedder.
func key(env stages.Env) (string, error) {
	return stages.Key(Stage, struct{ Embedder string }{env.EmbedderOf()})
}

// Run embeds the names and facts of every group whose graph changed.
func Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	key, err := key(env)
	if err != nil {
		return stages.Stats{}, err
	}
	return stages.RunGroups(ctx, env, Stage, key, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, g, fp)
	})
}

// item is one text to embed and where its vector goes.
type item struct {
	id, text string
	entity   bool
}

// runGroup embeds a group chunk by chunk, writing each chunk's vectors in its own transaction,
// then records the unit. A run killed in between leaves the unit unrecorded; the next run
// embeds the group again (the embedder's cache answers the texts already done) and overwrites
// the same vectors. In batch mode a chunk whose texts wait in a provider batch is skipped and
// the others go on, so the whole group is queued in one wave; the unit then returns
// batch.ErrPending.
func runGroup(ctx context.Context, env stages.Env, group, fp string) error {
	var items []item
	if err := env.Store.EachEntity(ctx, group, func(e graph.Entity) error {
		items = append(items, item{id: e.UUID, text: e.Name, entity: true})
		return nil
	}); err != nil {
		return err
	}
	if err := env.Store.EachFact(ctx, group, func(f graph.Fact) error {
		items = append(items, item{id: f.UUID, text: f.Fact})
		return nil
	}); err != nil {
		return err
	}
	pending := false
	var bad stages.Degraded // chunks whose embeddings answer stayed bad: left without vectors
	for len(items) > 0 {
		chunk := items[:min(len(items), chunkTexts)]
		items = items[len(chunk):]
		texts := make([]string, len(chunk))
		for i, it := range chunk {
			texts[i] = it.text
		}
		vecs, err := env.Embedder.Embed(ctx, texts)
		if errors.Is(err, batch.ErrPending) {
			pending = true
			continue
		}
		if err != nil && bad.Absorb(err) == nil {
			continue
		}
		if err != nil {
			return fmt.Errorf("embedding group %s: %w", group, err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embedding group %s: %d vectors for %d texts", group, len(vecs), len(texts))
		}
		if err := env.Store.Write(ctx, func(tx *checkpoints.Tx) error {
			for i, it := range chunk {
				set := tx.SetFactEmbedding
				if it.entity {
					set = tx.SetEntityEmbedding
				}
				if err := set(ctx, it.id, vecs[i]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return fmt.Errorf("writing the vectors of group %s: %w", group, err)
		}
	}
	if pending {
		return fmt.Errorf("embedding group %s: %w", group, batch.ErrPending)
	}
	return stages.Commit(ctx, env, Stage, group, fp, &bad, nil)
}
