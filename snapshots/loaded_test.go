package snapshots_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestLoadedGraphReadsAsItsStore loads the sample with the loader into Neo4j and into FalkorDB
// and reads each back: every group equals the store's (the two episodes of user-1 at one
// reference time in seq order, which their uuids would reverse, with their record keys), and
// each names its kind.
func TestLoadedGraphReadsAsItsStore(t *testing.T) {
	stored := snapshots.OpenStore(writeStore(t, sinkstest.Sample()), false)
	src, want := snapshotstest.Source(t, stored), snapshotstest.AsLoaded(t, stored)
	for _, c := range []struct {
		dialect cypher.Dialect
		kind    string
		uri     func(*testing.T) string
	}{
		{cypher.Neo4j, snapshots.KindNeo4j, func(t *testing.T) string {
			uri := testenv.Neo4jExclusive(t)
			if err := harness.ClearNeo4j(t.Context(), uri); err != nil {
				t.Fatal(err)
			}
			return uri
		}},
		{cypher.FalkorDB, snapshots.KindFalkorDB, func(t *testing.T) string {
			uri := testenv.FalkorDBExclusive(t)
			if err := harness.ClearFalkorDB(t.Context(), uri); err != nil {
				t.Fatal(err)
			}
			return uri
		}},
	} {
		t.Run(string(c.dialect), func(t *testing.T) {
			uri := c.uri(t)
			ctx := t.Context()
			l, err := graphdb.Open(ctx, graphdb.Options{Dialect: c.dialect, URI: uri, Owner: graphdb.NewMemOwner(), VectorDims: 3,
				Log: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close(context.Background())
			groups, err := src.Groups(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Load(ctx, src, groups, nil); err != nil {
				t.Fatal(err)
			}
			snap, err := snapshots.Open(ctx, uri)
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			if snap.Kind() != c.kind || !strings.HasPrefix(snap.Describe(), c.kind+" "+uri) {
				t.Errorf("kind %q, described as %q, want %s", snap.Kind(), snap.Describe(), c.kind)
			}
			got := snapshotstest.AsLoaded(t, snap)
			if len(got) != len(want) {
				t.Fatalf("%d groups read back, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("group %d read back differs:\ngot  %s\nwant %s", i, got[i], want[i])
				}
			}
		})
	}
}

// TestFalkorDBReadsGraphitiShapedGraphs reads graphs as graphiti-core's FalkorDriver writes them
// (a graph per group, times as isoformat text, naive ones too, no record key), skips a graph of
// other nodes, and refuses a graph holding another group's nodes, naming both.
func TestFalkorDBReadsGraphitiShapedGraphs(t *testing.T) {
	uri := testenv.FalkorDBExclusive(t)
	ctx := t.Context()
	db, err := harness.DialFalkorDB(uri)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	for graph, q := range map[string]string{
		"g": `CREATE (e:Episodic {uuid: 'e1', name: 'conv/D1:1', group_id: 'g', source: 'message', content: 'Alice: hi',
  valid_at: '2024-01-01T09:00:00', created_at: '2026-01-01T00:00:00.250000+00:00'})
CREATE (a:Entity:Person {uuid: 'n1', name: 'Alice', group_id: 'g', name_embedding: vecf32([0.5, 1.0]), age: 3})
CREATE (e)-[:MENTIONS {uuid: 'm1', group_id: 'g'}]->(a)`,
		"default_db": `CREATE (:Entity {uuid: 'n2', name: 'Bob', group_id: '_'})`,
		"other":      `CREATE (:Thing {x: 1})`,
	} {
		if err := db.Exec(ctx, graph, q); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := snapshots.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var got []string
	for g, err := range snap.Groups(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, groupJSON(t, g))
	}
	want := []string{
		`{"ID":"_","Episodes":null,"Entities":[{"UUID":"n2","GroupID":"_","Name":"Bob","Summary":"","Labels":null,"Attributes":null,"CreatedAt":"0001-01-01T00:00:00Z","NameEmbedding":null}],"Facts":null,"Versions":null,"Mentions":null,"Communities":null,"NamedKeys":0}`,
		`{"ID":"g","Episodes":[{"UUID":"e1","GroupID":"g","Name":"conv/D1:1","Source":"message","SourceDescription":"","Content":"Alice: hi","Speaker":"","ReferenceTime":"2024-01-01T09:00:00Z","Seq":0,"RecordKey":"conv/D1:1","IngestedAt":"2026-01-01T00:00:00.25Z","Record":null,"Origin":""}],"Entities":[{"UUID":"n1","GroupID":"g","Name":"Alice","Summary":"","Labels":["Person"],"Attributes":{"age":3},"CreatedAt":"0001-01-01T00:00:00Z","NameEmbedding":[0.5,1]}],"Facts":null,"Versions":null,"Mentions":[{"UUID":"m1","GroupID":"g","EpisodeUUID":"e1","EntityUUID":"n1","CreatedAt":"0001-01-01T00:00:00Z"}],"Communities":null,"NamedKeys":1}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := db.Exec(ctx, "g", `CREATE (:Entity {uuid: 'n3', name: 'Eve', group_id: 'h'})`); err != nil {
		t.Fatal(err)
	}
	for _, err := range snap.Groups(ctx, nil) {
		if err == nil || !strings.Contains(err.Error(), `graph g holds nodes of group "h"`) {
			t.Errorf("err = %v, want one naming graph g and group h", err)
		}
		break
	}
	// A filter for group _ reads past the other graphs without looking into them (g and its stray node).
	for g, err := range snap.Groups(ctx, func(id string) bool { return id == "_" }) {
		if err != nil || g.ID != "_" {
			t.Errorf("group %v, %v: want _ alone", g, err)
		}
	}
}
