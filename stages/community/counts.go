package community

import (
	"context"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// CountByGroup returns the number of stored communities of every group that has any.
func CountByGroup(ctx context.Context, store *checkpoints.Store) (map[string]int, error) {
	out := map[string]int{}
	err := store.EachCommunity(ctx, "", func(c graph.Community) error {
		out[c.GroupID]++
		return nil
	})
	return out, err
}
