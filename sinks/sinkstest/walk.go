package sinkstest

import (
	"context"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

// Visitor receives the records of a graph; nil functions skip their kind.
type Visitor struct {
	Episode     func(graph.Episode)
	Entity      func(graph.Entity)
	Fact        func(graph.Fact)
	FactVersion func(graph.FactVersion)
	Mention     func(graph.Mention)
	Community   func(graph.Community)
}

// Walk calls v for every record of src, group after group, each group's records kind by kind in
// the order of the Visitor's fields and, within a kind, in the Source's order.
func Walk(ctx context.Context, src sinks.Source, v Visitor) error {
	return sinks.EachGroup(ctx, src, func(g string) error {
		steps := []func() error{
			func() error { return sinks.EachEpisode(ctx, src, g, visit(v.Episode)) },
			func() error { return src.EachEntity(ctx, g, visit(v.Entity)) },
			func() error { return src.EachFact(ctx, g, visit(v.Fact)) },
			func() error { return src.EachFactVersion(ctx, g, visit(v.FactVersion)) },
			func() error { return src.EachMention(ctx, g, visit(v.Mention)) },
			func() error { return src.EachCommunity(ctx, g, visit(v.Community)) },
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	})
}

func visit[T any](fn func(T)) func(T) error {
	return func(x T) error {
		if fn != nil {
			fn(x)
		}
		return nil
	}
}

// AllEntityEdges is sinks.EntityEdges of every group of src in one map.
func AllEntityEdges(ctx context.Context, src sinks.Source) (map[string][]string, error) {
	out := map[string][]string{}
	err := sinks.EachGroup(ctx, src, func(g string) error {
		m, err := sinks.EntityEdges(ctx, src, g)
		for k, v := range m {
			out[k] = v
		}
		return err
	})
	return out, err
}
