package planner

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// seedBatch is how many episodes seed writes at once.
const seedBatch = 1000

// seed copies the episodes, group ids and forgotten hashes of the job's store into the scratch
// store, each episode with its record time, so that the sources ingested over them leave the
// scratch store holding what a run's store will hold: an episode keeps its first record time and
// takes the new content, a new one is recorded now, an episode no source repeats stays, and a
// row a deletion forgot is skipped.
func seed(ctx context.Context, scratch, prev *checkpoints.Store) error {
	if err := scratch.CopyForgotten(ctx, prev); err != nil {
		return err
	}
	groups, err := prev.Groups(ctx)
	if err != nil {
		return err
	}
	claims := map[string]string{}
	for _, g := range groups {
		orig, ok, err := prev.GroupOriginal(ctx, g)
		if err != nil {
			return err
		}
		if ok {
			claims[g] = orig
		}
	}
	if len(claims) > 0 {
		if _, err := scratch.ClaimGroups(ctx, claims); err != nil {
			return err
		}
	}
	var batch []graph.Episode
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		_, err := scratch.UpsertEpisodes(ctx, batch, batch[0].IngestedAt)
		batch = batch[:0]
		return err
	}
	err = prev.Episodes(ctx, func(ep graph.Episode) error {
		if len(batch) > 0 && (len(batch) == seedBatch || !ep.IngestedAt.Equal(batch[0].IngestedAt)) {
			if err := flush(); err != nil {
				return err
			}
		}
		batch = append(batch, ep)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return fmt.Errorf("copying the episodes of %s: %w", prev.Path(), err)
	}
	return nil
}
