package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/suggestions"
	"github.com/tkgraph/backfill/stages/resolve"
)

// shownEntities is how many closest names the error of an entity not found suggests.
const shownEntities = 5

// matchEntities returns the ids of the entities of group ("" = every group) named name: the
// names equal once normalized (resolve.Normalize: Unicode NFKC, case folded, spaces and
// surrounding punctuation), or, when none is, equal once a Korean particle is removed from
// either side ("지훈은" finds 지훈, "지훈" finds 지훈이). When nothing matches, the error says so and
// names the closest entities.
func matchEntities(ctx context.Context, store *checkpoints.Store, group, name string) (map[string]bool, error) {
	want := resolve.Normalize(name)
	wantStems := resolve.Stems(want)
	exact, stemmed := map[string]bool{}, map[string]bool{}
	near := suggestions.NewNearest(want, shownEntities)
	if err := store.EachEntity(ctx, group, func(e graph.Entity) error {
		key := resolve.Normalize(e.Name)
		switch {
		case key == want:
			exact[e.UUID] = true
		case slices.Contains(wantStems, key) || slices.Contains(resolve.Stems(key), want):
			stemmed[e.UUID] = true
		default:
			near.Add(e.Name)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	switch {
	case len(exact) > 0:
		return exact, nil
	case len(stemmed) > 0:
		return stemmed, nil
	}
	where := "in checkpoint " + store.Path()
	if group != "" {
		where = "in group " + group
	}
	if names := near.Names(); len(names) > 0 {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		return nil, fmt.Errorf("no entity named %q %s; closest: %s", name, where, strings.Join(quoted, ", "))
	}
	return nil, fmt.Errorf("no entity named %q %s: it has no entities", name, where)
}
