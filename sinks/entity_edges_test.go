package sinks_test

import (
	"context"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// grouped is a MemSource that also reads one group's facts and versions, and counts the reads.
type grouped struct {
	*sinks.MemSource
	reads []string
}

func (g *grouped) EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error {
	g.reads = append(g.reads, group)
	return g.Facts(ctx, func(f graph.Fact) error {
		if f.GroupID != group {
			return nil
		}
		return fn(f)
	})
}

func (g *grouped) EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error {
	return g.FactVersions(ctx, func(v graph.FactVersion) error {
		if v.GroupID != group {
			return nil
		}
		return fn(v)
	})
}

// TestEpisodeEdgesByGroup requires the group-at-a-time entity_edges to equal the whole-graph
// map for every episode, with one read per group.
func TestEpisodeEdgesByGroup(t *testing.T) {
	ctx := context.Background()
	src := &grouped{MemSource: sinkstest.Sample()}
	whole, err := sinks.EntityEdges(ctx, src.MemSource)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]sinks.Source{"grouped": src, "whole": src.MemSource} {
		e := sinks.NewEpisodeEdges(s)
		n := 0
		if err := s.Episodes(ctx, func(ep graph.Episode) error {
			n++
			got, err := e.Of(ctx, ep)
			if err != nil {
				return err
			}
			if !slices.Equal(got, whole[ep.UUID]) {
				t.Errorf("%s: entity_edges of %s = %v, want %v", name, ep.Name, got, whole[ep.UUID])
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n < 3 {
			t.Fatalf("%s: %d episodes streamed", name, n)
		}
	}
	if want := []string{"user-1", "user_2"}; !slices.Equal(src.reads, want) {
		t.Errorf("group reads %v, want one per group %v", src.reads, want)
	}
}
