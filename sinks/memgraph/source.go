package memgraph

import (
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// GroupSource streams one group's records to the loader; *checkpoints.Store satisfies it. Each
// method reads only the named group (never "" here).
type GroupSource interface {
	GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error)
	EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error
	EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error
	EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error
	EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error
	EachCommunity(ctx context.Context, group string, fn func(graph.Community) error) error
}

// Filter turns a whole-graph sinks.Source into a GroupSource by reading the whole stream and
// keeping one group's records. Each call reads the whole table, so it suits small graphs and
// tests; use the checkpoint store for real loads.
func Filter(src sinks.Source) GroupSource { return filtered{src} }

type filtered struct{ src sinks.Source }

func (f filtered) GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error) {
	var out []graph.Episode
	err := f.src.Episodes(ctx, func(e graph.Episode) error {
		if e.GroupID == group {
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

func (f filtered) EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error {
	return f.src.Entities(ctx, func(e graph.Entity) error { return only(e.GroupID, group, e, fn) })
}

func (f filtered) EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error {
	return f.src.Facts(ctx, func(x graph.Fact) error { return only(x.GroupID, group, x, fn) })
}

func (f filtered) EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error {
	return f.src.FactVersions(ctx, func(v graph.FactVersion) error { return only(v.GroupID, group, v, fn) })
}

func (f filtered) EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error {
	return f.src.Mentions(ctx, func(m graph.Mention) error { return only(m.GroupID, group, m, fn) })
}

func (f filtered) EachCommunity(ctx context.Context, group string, fn func(graph.Community) error) error {
	return f.src.Communities(ctx, func(c graph.Community) error { return only(c.GroupID, group, c, fn) })
}

func only[T any](have, want string, v T, fn func(T) error) error {
	if have != want {
		return nil
	}
	return fn(v)
}

// SourceGroups lists the sorted, distinct group ids of src's episodes, entities and facts.
func SourceGroups(ctx context.Context, src sinks.Source) ([]string, error) {
	var out []string
	add := func(g string) error {
		out = append(out, g)
		return nil
	}
	if err := src.Episodes(ctx, func(e graph.Episode) error { return add(e.GroupID) }); err != nil {
		return nil, fmt.Errorf("listing groups: %w", err)
	}
	if err := src.Entities(ctx, func(e graph.Entity) error { return add(e.GroupID) }); err != nil {
		return nil, fmt.Errorf("listing groups: %w", err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// view is one group of a GroupSource seen as a sinks.Source.
type view struct {
	src   GroupSource
	group string
}

var _ sinks.Source = view{}

func (v view) Episodes(ctx context.Context, fn func(graph.Episode) error) error {
	eps, err := v.src.GroupEpisodes(ctx, v.group)
	if err != nil {
		return err
	}
	for _, e := range eps {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

func (v view) Entities(ctx context.Context, fn func(graph.Entity) error) error {
	return v.src.EachEntity(ctx, v.group, fn)
}

func (v view) Facts(ctx context.Context, fn func(graph.Fact) error) error {
	return v.src.EachFact(ctx, v.group, fn)
}

func (v view) FactVersions(ctx context.Context, fn func(graph.FactVersion) error) error {
	return v.src.EachFactVersion(ctx, v.group, fn)
}

func (v view) Mentions(ctx context.Context, fn func(graph.Mention) error) error {
	return v.src.EachMention(ctx, v.group, fn)
}

func (v view) Communities(ctx context.Context, fn func(graph.Community) error) error {
	return v.src.EachCommunity(ctx, v.group, fn)
}
