package sinks

import (
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// EntityEdges maps each episode uuid to the sorted, de-duplicated uuids of the facts it created,
// re-asserted or changed: a fact belongs to every episode in its Episodes list and to the episode
// of every version-log row (so an episode that invalidated a fact lists it too). This is
// Graphiti's Episodic.entity_edges. Episodes with no facts are absent from the map.
func EntityEdges(ctx context.Context, src Source) (map[string][]string, error) {
	return collectEdges(ctx, src.Facts, src.FactVersions)
}

// collectEdges builds the EntityEdges map from a stream of facts and one of fact versions.
func collectEdges(ctx context.Context, facts func(context.Context, func(graph.Fact) error) error,
	versions func(context.Context, func(graph.FactVersion) error) error) (map[string][]string, error) {
	out := map[string][]string{}
	add := func(episode, fact string) {
		if episode != "" && fact != "" {
			out[episode] = append(out[episode], fact)
		}
	}
	err := facts(ctx, func(f graph.Fact) error {
		for _, ep := range f.Episodes {
			add(ep, f.UUID)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading facts: %w", err)
	}
	err = versions(ctx, func(v graph.FactVersion) error {
		add(v.EpisodeUUID, v.FactUUID)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading fact versions: %w", err)
	}
	for ep, facts := range out {
		slices.Sort(facts)
		out[ep] = slices.Compact(facts)
	}
	return out, nil
}

// GroupFactReader reads one group's facts and fact versions; the checkpoint store (and so the
// jobs package's graph source) implements it.
type GroupFactReader interface {
	EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error
	EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error
}

// EpisodeEdges gives the entity_edges of episodes as a Source streams them (ordered by group).
// When the Source is also a GroupFactReader it holds one group's map at a time, so memory is
// bounded by the largest group; otherwise it builds the whole graph's map once.
type EpisodeEdges struct {
	src   Source
	group string
	m     map[string][]string
	ready bool // m is the whole graph's map
}

// NewEpisodeEdges prepares the entity_edges of src's episodes.
func NewEpisodeEdges(src Source) *EpisodeEdges { return &EpisodeEdges{src: src} }

// Of returns the entity_edges of ep.
func (e *EpisodeEdges) Of(ctx context.Context, ep graph.Episode) ([]string, error) {
	r, grouped := e.src.(GroupFactReader)
	switch {
	case !grouped && !e.ready:
		m, err := EntityEdges(ctx, e.src)
		if err != nil {
			return nil, err
		}
		e.m, e.ready = m, true
	case grouped && (e.m == nil || e.group != ep.GroupID):
		g := ep.GroupID
		m, err := collectEdges(ctx,
			func(ctx context.Context, fn func(graph.Fact) error) error { return r.EachFact(ctx, g, fn) },
			func(ctx context.Context, fn func(graph.FactVersion) error) error {
				return r.EachFactVersion(ctx, g, fn)
			})
		if err != nil {
			return nil, fmt.Errorf("collecting the entity edges of group %s: %w", g, err)
		}
		e.m, e.group = m, g
	}
	return e.m[ep.UUID], nil
}
