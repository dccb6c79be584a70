package snapshots

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// writeStore writes a MemSource into a new checkpoint store, group by group.
func writeStore(t *testing.T, src *sinks.MemSource) *checkpoints.Store {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	if _, err := store.UpsertEpisodes(ctx, src.EpisodeList, sinkstest.T(2026, 1, 1, 0, 0)); err != nil {
		t.Fatal(err)
	}
	groups := map[string]bool{}
	for _, e := range src.EpisodeList {
		groups[e.GroupID] = true
	}
	for g := range groups {
		err := store.Write(ctx, func(tx *checkpoints.Tx) error {
			if err := tx.ReplaceEntities(ctx, g, only(src.EntityList, g, func(e graph.Entity) string { return e.GroupID }),
				only(src.MentionList, g, func(m graph.Mention) string { return m.GroupID })); err != nil {
				return err
			}
			if err := tx.ReplaceFacts(ctx, g, only(src.FactList, g, func(f graph.Fact) string { return f.GroupID }),
				only(src.FactVersionList, g, func(v graph.FactVersion) string { return v.GroupID })); err != nil {
				return err
			}
			return tx.ReplaceCommunities(ctx, g, only(src.CommunityList, g, func(c graph.Community) string { return c.GroupID }))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return store
}

func only[T any](xs []T, g string, group func(T) string) []T {
	var out []T
	for _, x := range xs {
		if group(x) == g {
			out = append(out, x)
		}
	}
	return out
}

// collect reads every group want accepts, as JSON text with empty slices as null.
func collect(t *testing.T, s Snapshot, want func(string) bool) []string {
	t.Helper()
	var out []string
	for g, err := range s.Groups(context.Background(), want) {
		if err != nil {
			t.Fatal(err)
		}
		g.Versions = nil // an export has none; compared apart
		for i := range g.Entities {
			if len(g.Entities[i].Attributes) == 0 {
				g.Entities[i].Attributes = nil
			}
		}
		raw, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.ReplaceAll(string(raw), "[]", "null"))
	}
	return out
}

func TestStoreAndExportGiveTheSameGroups(t *testing.T) {
	store := writeStore(t, sinkstest.Sample())
	dir := t.TempDir()
	if err := parquet.Export(context.Background(), store, dir); err != nil {
		t.Fatal(err)
	}
	fromStore := OpenStore(store, false)
	fromExport, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	a, b := collect(t, fromStore, nil), collect(t, fromExport, nil)
	if len(a) != 2 {
		t.Fatalf("%d groups from the store, want 2", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("group %d differs:\nstore  %s\nexport %s", i, a[i], b[i])
		}
	}
	if !fromStore.HasVersions() || fromExport.HasVersions() {
		t.Error("HasVersions: want true for the store, false for the export")
	}
	for g, err := range fromStore.Groups(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if g.ID == "user-1" && len(g.Versions) != 3 {
			t.Errorf("user-1 has %d versions, want 3", len(g.Versions))
		}
	}
	// A filter skips groups in both.
	want := func(id string) bool { return id == "user_2" }
	if a, b := collect(t, fromStore, want), collect(t, fromExport, want); len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Errorf("filtered: store %v, export %v", a, b)
	}
}

func TestExportOutOfGroupOrderIsAnError(t *testing.T) {
	store := writeStore(t, sinkstest.Sample())
	dir := t.TempDir()
	if err := parquet.Export(context.Background(), store, dir); err != nil {
		t.Fatal(err)
	}
	rows := []parquet.EntityRow{{UUID: "b", GroupID: "user_2", Labels: []string{"Entity"}}, {UUID: "a", GroupID: "user-1", Labels: []string{"Entity"}}}
	if err := pq.WriteFile(filepath.Join(dir, parquet.EntitiesFile), rows); err != nil {
		t.Fatal(err)
	}
	s, err := OpenParquet(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got error
	for _, err := range s.Groups(context.Background(), nil) {
		if err != nil {
			got = err
		}
	}
	if got == nil || !strings.Contains(got.Error(), "not in group order") {
		t.Errorf("error %v, want one about group order", got)
	}
}
