package sinks_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

func TestMemSourceOrder(t *testing.T) {
	ctx := context.Background()
	src := sinkstest.Sample()
	groups, err := src.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// user-1 sorts before user_2.
	if want := []string{"user-1", "user_2"}; !slices.Equal(groups, want) {
		t.Fatalf("groups = %v, want %v", groups, want)
	}
	var eps, ents, vs []string
	err = sinkstest.Walk(ctx, src, sinkstest.Visitor{
		Episode:     func(e graph.Episode) { eps = append(eps, e.GroupID+"/"+e.Name) },
		Entity:      func(e graph.Entity) { ents = append(ents, e.GroupID+"/"+e.UUID) },
		FactVersion: func(v graph.FactVersion) { vs = append(vs, v.FactUUID+"/"+v.Reason) },
	})
	if err != nil {
		t.Fatal(err)
	}
	// m1 and m2 share a reference time and are ordered by seq.
	if want := []string{"user-1/m1", "user-1/m2", "user_2/order 7"}; !slices.Equal(eps, want) {
		t.Errorf("episodes = %v, want %v", eps, want)
	}
	if !slices.IsSorted(ents) || len(ents) != 4 {
		t.Errorf("entities not in group_id, uuid order: %v", ents)
	}
	if len(vs) != 3 {
		t.Fatalf("got %d versions", len(vs))
	}
	for i := 1; i < len(vs); i++ {
		if vs[i-1][:36] > vs[i][:36] {
			t.Errorf("versions not ordered by fact uuid: %v", vs)
		}
	}
	// The slice itself stays untouched.
	if src.EpisodeList[0].Name != "order 7" {
		t.Errorf("MemSource sorted its own slice")
	}
}

func TestMemSourceStops(t *testing.T) {
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		fn   func(graph.Fact) error
		want error
		n    int
	}{
		{"callback error", context.Background(), func(graph.Fact) error { return boom }, boom, 1},
		{"cancelled", cancelled, func(graph.Fact) error { return nil }, context.Canceled, 0},
		{"ok", context.Background(), func(graph.Fact) error { return nil }, nil, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := sinkstest.Sample().EachFact(tc.ctx, "user-1", func(f graph.Fact) error { n++; return tc.fn(f) })
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
			if n != tc.n {
				t.Errorf("callback ran %d times, want %d", n, tc.n)
			}
		})
	}
}

func TestEntityEdges(t *testing.T) {
	src := sinkstest.Sample()
	got, err := sinks.EntityEdges(context.Background(), src, "user-1")
	if err != nil {
		t.Fatal(err)
	}
	if other, err := sinks.EntityEdges(context.Background(), src, "user_2"); err != nil || len(other) != 0 {
		t.Errorf("user_2 entity_edges = %v, %v; want none", other, err)
	}
	ep1, ep2, ep3 := graph.EpisodeID("user-1", "m1"), graph.EpisodeID("user-1", "m2"), graph.EpisodeID("user_2", "r1")
	paris := src.FactList[1].UUID
	lyon := src.FactList[0].UUID
	tests := []struct {
		episode string
		want    []string
	}{
		// ep1 created the Paris fact and, through the version log, invalidated the Lyon fact.
		{ep1, sortedIDs(paris, lyon)},
		// ep2 re-asserted Paris and created Lyon (listed once although it appears twice).
		{ep2, sortedIDs(paris, lyon)},
		{ep3, nil},
	}
	for _, tc := range tests {
		if g := got[tc.episode]; !slices.Equal(g, tc.want) {
			t.Errorf("entity_edges[%s] = %v, want %v", tc.episode, g, tc.want)
		}
	}
	if len(got) != 2 {
		t.Errorf("map has %d episodes, want 2", len(got))
	}
}

func sortedIDs(ids ...string) []string {
	slices.Sort(ids)
	return ids
}
