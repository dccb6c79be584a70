// Package snapshotstest writes hand-made graphs into a real checkpoint store, for the tests of
// the packages that read finished graphs (snapshots, evaluation, graphdiff), and turns a
// snapshot into a loader's source and into the text a graph database loaded from it reads
// back as (Source, AsLoaded), for the tests of the graph readers and the loader.
package snapshotstest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
)

// Store writes the groups into a new checkpoint store in a temporary directory (episodes,
// entities with mentions, facts with their version log, communities) and returns it open; the
// test's cleanup closes it.
func Store(t testing.TB, groups ...*snapshots.Group) *checkpoints.Store {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "graph.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	for _, g := range groups {
		if len(g.Episodes) > 0 {
			if _, err := store.UpsertEpisodes(ctx, g.Episodes, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
				t.Fatal(err)
			}
		}
		err := store.Write(ctx, func(tx *checkpoints.Tx) error {
			if err := tx.ReplaceEntities(ctx, g.ID, g.Entities, g.Mentions); err != nil {
				return err
			}
			if err := tx.ReplaceFacts(ctx, g.ID, g.Facts, g.Versions); err != nil {
				return err
			}
			return tx.ReplaceCommunities(ctx, g.ID, g.Communities)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return store
}

// Split sorts a sinks-style list of records into groups by group id (a helper for tests that
// hold their graph as flat lists).
func Split(eps []graph.Episode, ents []graph.Entity, facts []graph.Fact, vs []graph.FactVersion, ms []graph.Mention, cs []graph.Community) []*snapshots.Group {
	byID := map[string]*snapshots.Group{}
	var order []string
	get := func(id string) *snapshots.Group {
		g, ok := byID[id]
		if !ok {
			g = &snapshots.Group{ID: id}
			byID[id] = g
			order = append(order, id)
		}
		return g
	}
	for _, e := range eps {
		get(e.GroupID).Episodes = append(get(e.GroupID).Episodes, e)
	}
	for _, e := range ents {
		get(e.GroupID).Entities = append(get(e.GroupID).Entities, e)
	}
	for _, f := range facts {
		get(f.GroupID).Facts = append(get(f.GroupID).Facts, f)
	}
	for _, v := range vs {
		get(v.GroupID).Versions = append(get(v.GroupID).Versions, v)
	}
	for _, m := range ms {
		get(m.GroupID).Mentions = append(get(m.GroupID).Mentions, m)
	}
	for _, c := range cs {
		get(c.GroupID).Communities = append(get(c.GroupID).Communities, c)
	}
	out := make([]*snapshots.Group, 0, len(order))
	for _, id := range order {
		out = append(out, byID[id])
	}
	return out
}
