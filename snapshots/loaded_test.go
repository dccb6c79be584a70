package snapshots_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/tests/harness"
)

// loadedSample is the sample graph with the two episodes of user-1 at one reference time, so
// only their seq orders them as the store does (their uuids sort the other way round), and
// attributes a database keeps as they are (the loader writes a map as JSON text).
func loadedSample() *sinks.MemSource {
	src := sinkstest.Sample()
	for i := range src.EntityList {
		if src.EntityList[i].Name == "Alice" {
			src.EntityList[i].Attributes = map[string]any{"age": float64(34), "nick": "Al", "tags": []any{"a", "b"}}
		}
	}
	return src
}

// fromStore is what the pipeline loads: the groups as the store gives them back (its ingest
// times).
func fromStore(t *testing.T, s snapshots.Snapshot) *sinks.MemSource {
	t.Helper()
	src := &sinks.MemSource{}
	for g, err := range s.Groups(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		src.EpisodeList = append(src.EpisodeList, g.Episodes...)
		src.EntityList = append(src.EntityList, g.Entities...)
		src.FactList = append(src.FactList, g.Facts...)
		src.FactVersionList = append(src.FactVersionList, g.Versions...)
		src.MentionList = append(src.MentionList, g.Mentions...)
		src.CommunityList = append(src.CommunityList, g.Communities...)
	}
	return src
}

// asLoaded is how a graph database holds what the store keeps: a message's speaker inside its
// content, no version log.
func asLoaded(t *testing.T, s snapshots.Snapshot) []string {
	t.Helper()
	var out []string
	for g, err := range s.Groups(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Episodes {
			e := &g.Episodes[i]
			e.Content, e.Speaker = sinks.EpisodeContent(*e), ""
		}
		out = append(out, groupJSON(t, g))
	}
	return out
}

// TestLoadedGraphReadsAsItsStore loads the sample with the loader into Neo4j and into FalkorDB
// and reads each back: every group equals the store's (episodes in the store's order, with
// their record keys and seq), and each names its kind.
func TestLoadedGraphReadsAsItsStore(t *testing.T) {
	store := writeStore(t, loadedSample())
	src := fromStore(t, snapshots.OpenStore(store, false))
	want := asLoaded(t, snapshots.OpenStore(store, false))
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
			db, err := harness.DialFalkorDB(uri)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Clear(t.Context()); err != nil {
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
			got := asLoaded(t, snap)
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
