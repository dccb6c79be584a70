package sinks

import (
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// EntityEdges maps each episode uuid of a group to the sorted, de-duplicated uuids of the facts
// it created, re-asserted or changed: a fact belongs to every episode in its Episodes list and to
// the episode of every version-log row (so an episode that invalidated a fact lists it too). This
// is Graphiti's Episodic.entity_edges. Episodes with no facts are absent from the map.
func EntityEdges(ctx context.Context, src Source, group string) (map[string][]string, error) {
	out := map[string][]string{}
	add := func(episode, fact string) {
		if episode != "" && fact != "" {
			out[episode] = append(out[episode], fact)
		}
	}
	err := src.EachFact(ctx, group, func(f graph.Fact) error {
		for _, ep := range f.Episodes {
			add(ep, f.UUID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the facts of group %s: %w", group, err)
	}
	err = src.EachFactVersion(ctx, group, func(v graph.FactVersion) error {
		add(v.EpisodeUUID, v.FactUUID)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the fact versions of group %s: %w", group, err)
	}
	for ep, facts := range out {
		slices.Sort(facts)
		out[ep] = slices.Compact(facts)
	}
	return out, nil
}
