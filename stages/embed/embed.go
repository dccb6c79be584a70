package embed

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/summarize"
)

// Stage is the name of the stage in the store and in reports.
const Stage = "embed"

// Run embeds the names and facts of every group whose graph changed.
func Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	parts := []string{env.Embedder.Model(), fmt.Sprint(env.Embedder.Dimensions())}
	return stages.RunGroups(ctx, env, Stage, summarize.Stage, parts, func(ctx context.Context, g, fp string) error {
		return runGroup(ctx, env, g, fp)
	})
}

func runGroup(ctx context.Context, env stages.Env, group, fp string) error {
	var ids, texts []string
	nEnt := 0
	if err := env.Store.EachEntity(ctx, group, func(e graph.Entity) error {
		ids, texts = append(ids, e.UUID), append(texts, e.Name)
		nEnt++
		return nil
	}); err != nil {
		return err
	}
	if err := env.Store.EachFact(ctx, group, func(f graph.Fact) error {
		ids, texts = append(ids, f.UUID), append(texts, f.Fact)
		return nil
	}); err != nil {
		return err
	}
	vecs, err := env.Embedder.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("embedding group %s: %w", group, err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embedding group %s: %d vectors for %d texts", group, len(vecs), len(texts))
	}
	return env.Store.CommitUnit(ctx, Stage, group, fp, func(tx *checkpoints.Tx) error {
		for i, id := range ids {
			set := tx.SetFactEmbedding
			if i < nEnt {
				set = tx.SetEntityEmbedding
			}
			if err := set(ctx, id, vecs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}
