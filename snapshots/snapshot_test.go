package snapshots_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
)

// writeStore writes a MemSource into a new checkpoint store.
func writeStore(t testing.TB, src *sinks.MemSource) *checkpoints.Store {
	t.Helper()
	return snapshotstest.Store(t, snapshotstest.Split(src.EpisodeList, src.EntityList, src.FactList, src.FactVersionList,
		src.MentionList, src.CommunityList)...)
}

// collect reads every group want accepts, as JSON text with empty slices as null.
func collect(t *testing.T, s snapshots.Snapshot, want func(string) bool) []string {
	t.Helper()
	var out []string
	for g, err := range s.Groups(context.Background(), want) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, groupJSON(t, g))
	}
	return out
}

// groupJSON is a group as JSON text without its version log, empty slices and attributes as
// null.
func groupJSON(t *testing.T, g *snapshots.Group) string {
	t.Helper()
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
	return strings.ReplaceAll(string(raw), "[]", "null")
}

func TestStoreAndExportGiveTheSameGroups(t *testing.T) {
	store := writeStore(t, sinkstest.Sample())
	dir := t.TempDir()
	if err := parquet.Export(context.Background(), store, dir); err != nil {
		t.Fatal(err)
	}
	fromStore := snapshots.OpenStore(store, false)
	fromExport, err := snapshots.Open(context.Background(), dir)
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
	s, err := snapshots.OpenParquet(dir)
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
