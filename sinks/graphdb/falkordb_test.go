package graphdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/tests/harness"
)

// falkorDB connects to the test FalkorDB server, holding it exclusively, and deletes every graph.
func falkorDB(t *testing.T) (string, *harness.FalkorDB) {
	t.Helper()
	uri := testenv.FalkorDBExclusive(t)
	db, err := harness.DialFalkorDB(uri)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	return uri, db
}

// falkorLoad runs one Load of src (every group) into FalkorDB.
func falkorLoad(ctx context.Context, t *testing.T, uri string, src sinks.Source, o Options) (Result, error) {
	t.Helper()
	o.Dialect, o.URI = cypher.FalkorDB, uri
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Owner == nil {
		o.Owner = ownerOf(t)
	}
	l, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	groups, err := src.Groups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return l.Load(ctx, src, groups, nil)
}

func falkorSnapshot(t *testing.T, db *harness.FalkorDB) string {
	t.Helper()
	lines, err := db.Snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// TestFalkorDBLoadReadBack loads the sample and reads it back the way graphiti-core's FalkorDriver
// stores a graph: one graph per group, times as isoformat strings, embeddings as vecf32, custom
// entity types as labels, and Graphiti's range and full-text indexes in each graph.
func TestFalkorDBLoadReadBack(t *testing.T) {
	uri, db := falkorDB(t)
	ctx := t.Context()
	res, err := falkorLoad(ctx, t, uri, sinkstest.Sample(), Options{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Episodic": 3, "Entity": 4, "Entity:Location": 2, "Entity:Person": 1, "Community": 1,
		"RELATES_TO": 2, "MENTIONS": 3, "HAS_MEMBER": 2}
	if !reflect.DeepEqual(res.Counts, want) {
		t.Errorf("counts = %v, want %v", res.Counts, want)
	}
	if res.Nodes != 8 || res.Edges != 7 || res.Groups != 2 || res.FreshGroups != 2 || res.Deleted != 0 {
		t.Errorf("result = %+v", res)
	}
	graphs, err := db.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(graphs, []string{"user-1", "user_2"}) {
		t.Errorf("graphs = %v, want one per group", graphs)
	}
	rows, err := db.Query(ctx, "user-1", "MATCH (n:Entity:Person) RETURN n.name, labels(n), n.created_at, "+
		"n.name_embedding, typeOf(n.name_embedding), n.group_id")
	if err != nil || len(rows) != 1 {
		t.Fatalf("person: %v, %v", rows, err)
	}
	if got := fmt.Sprint(rows[0]); got != "[Alice [Entity, Person] 2024-03-01T09:00:00+00:00 <0.500000, -0.250000, 1.000000> Vectorf32 user-1]" {
		t.Errorf("person row = %s", got)
	}
	rows, err = db.Query(ctx, "user-1", "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) WHERE r.invalid_at IS NOT NULL "+
		"RETURN r.valid_at, r.invalid_at, r.expired_at, r.episodes, typeOf(r.fact_embedding)")
	if err != nil || len(rows) != 1 {
		t.Fatalf("closed fact: %v, %v", rows, err)
	}
	// This fact has no embedding: no fact_embedding property (vecf32(null) sets none).
	if got := fmt.Sprint(rows[0]); got != "[2020-01-01T00:00:00+00:00 2024-03-01T00:00:00+00:00 2024-03-01T09:00:00+00:00 [63193057-7c0a-560e-a769-3ef4a65d2b4c] Null]" {
		t.Errorf("closed fact = %s", got)
	}
	for _, g := range graphs {
		idx, err := db.Query(ctx, g, "CALL db.indexes() YIELD label, properties, types, entitytype RETURN entitytype, label, properties, types ORDER BY entitytype, label")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range idx {
			got = append(got, fmt.Sprint(r))
		}
		if want := graphitiIndexes; !slices.Equal(got, want) {
			t.Errorf("graph %s indexes:\n%s\nwant:\n%s", g, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// graphitiIndexes is what CALL db.indexes() shows in a graph after graphiti-core 0.31.2's
// FalkorDriver.build_indices_and_constraints() runs its statements (cypher.PreLoad on FalkorDB).
var graphitiIndexes = []string{
	"[NODE Community [uuid, name, group_id] {uuid: [RANGE], name: [FULLTEXT], group_id: [FULLTEXT]}]",
	"[NODE Entity [uuid, group_id, name, created_at, summary] {uuid: [RANGE], group_id: [RANGE, FULLTEXT], name: [RANGE, FULLTEXT], created_at: [RANGE], summary: [FULLTEXT]}]",
	"[NODE Episodic [uuid, group_id, created_at, valid_at, content, source, source_description] {uuid: [RANGE], group_id: [RANGE, FULLTEXT], created_at: [RANGE], valid_at: [RANGE], content: [FULLTEXT], source: [FULLTEXT], source_description: [FULLTEXT]}]",
	"[NODE Saga [uuid, group_id, name] {uuid: [RANGE], group_id: [RANGE], name: [RANGE]}]",
	"[RELATIONSHIP HAS_EPISODE [uuid, group_id] {uuid: [RANGE], group_id: [RANGE]}]",
	"[RELATIONSHIP HAS_MEMBER [uuid] {uuid: [RANGE]}]",
	"[RELATIONSHIP MENTIONS [uuid, group_id] {uuid: [RANGE], group_id: [RANGE]}]",
	"[RELATIONSHIP NEXT_EPISODE [uuid, group_id] {uuid: [RANGE], group_id: [RANGE]}]",
	"[RELATIONSHIP RELATES_TO [uuid, group_id, name, created_at, expired_at, valid_at, invalid_at, fact] {uuid: [RANGE], group_id: [RANGE, FULLTEXT], name: [RANGE, FULLTEXT], created_at: [RANGE], expired_at: [RANGE], valid_at: [RANGE], invalid_at: [RANGE], fact: [FULLTEXT]}]",
}

// TestFalkorDBLoadAgainAndChanged: a second load of the same graph changes nothing; a load of the
// changed sample (a fact merged away, a label changed, a community recomputed) settles each
// group's graph to what a clean load of it gives; loads cancelled midway and loaded again give
// the clean graph.
func TestFalkorDBLoadAgainAndChanged(t *testing.T) {
	uri, db := falkorDB(t)
	ctx := t.Context()
	if _, err := falkorLoad(ctx, t, uri, changed(), Options{}); err != nil {
		t.Fatal(err)
	}
	wantChanged := falkorSnapshot(t, db)
	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := falkorLoad(ctx, t, uri, sinkstest.Sample(), Options{BatchSize: 2}); err != nil {
		t.Fatal(err)
	}
	clean := falkorSnapshot(t, db)
	again, err := falkorLoad(ctx, t, uri, sinkstest.Sample(), Options{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if again.FreshGroups != 0 || again.Deleted != 0 || again.LabelsRemoved != 0 {
		t.Errorf("second load: %+v", again)
	}
	if got := falkorSnapshot(t, db); got != clean {
		t.Errorf("loading twice changed the graph:\n%s\n---\n%s", got, clean)
	}
	res, err := falkorLoad(ctx, t, uri, changed(), Options{BatchSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 4 || res.LabelsRemoved != 1 {
		t.Errorf("result = %+v, want 4 deleted and 1 label removed", res)
	}
	if got := falkorSnapshot(t, db); got != wantChanged {
		t.Errorf("incremental load differs from a clean load:\n%s\n---\n%s", got, wantChanged)
	}
	for _, after := range []int64{1, 4, 7} {
		t.Run(fmt.Sprintf("killed after %d rows", after), func(t *testing.T) {
			if err := db.Clear(ctx); err != nil {
				t.Fatal(err)
			}
			kctx, cancel := context.WithCancel(ctx)
			defer cancel()
			src := &cancelling{MemSource: sinkstest.Sample(), after: after, cancel: cancel}
			if _, err := falkorLoad(kctx, t, uri, src, Options{BatchSize: 1}); !errors.Is(err, context.Canceled) {
				t.Fatalf("killed load: err = %v, want context.Canceled", err)
			}
			if falkorSnapshot(t, db) == clean {
				t.Fatalf("the killed load wrote everything")
			}
			if _, err := falkorLoad(ctx, t, uri, sinkstest.Sample(), Options{BatchSize: 2}); err != nil {
				t.Fatal(err)
			}
			if got := falkorSnapshot(t, db); got != clean {
				t.Errorf("graph after a killed and a full load differs:\n%s\n---\n%s", got, clean)
			}
		})
	}
}
