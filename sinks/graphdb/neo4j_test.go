package graphdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/tests/harness"
)

// neo4jDB connects to the test server, holding it exclusively, and empties it.
func neo4jDB(t *testing.T) (string, neo4j.DriverWithContext) {
	t.Helper()
	uri := testenv.Neo4jExclusive(t)
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The server is shared with checkouts of other versions, whose loads expect range
		// indexes where this one creates uniqueness constraints: leave none behind.
		dropConstraints(context.Background(), drv)
		drv.Close(context.Background())
	})
	clearDB(t, drv)
	return uri, drv
}

// dropConstraints drops every constraint of the server (best effort).
func dropConstraints(ctx context.Context, drv neo4j.DriverWithContext) {
	res, err := neo4j.ExecuteQuery(ctx, drv, "SHOW CONSTRAINTS YIELD name RETURN name", nil, neo4j.EagerResultTransformer)
	if err != nil {
		return
	}
	for _, r := range res.Records {
		name, _ := r.Get("name")
		_, _ = neo4j.ExecuteQuery(ctx, drv, "DROP CONSTRAINT `"+name.(string)+"` IF EXISTS", nil, neo4j.EagerResultTransformer)
	}
}

func clearDB(t *testing.T, drv neo4j.DriverWithContext) {
	t.Helper()
	if _, err := neo4j.ExecuteQuery(t.Context(), drv, "MATCH (n) DETACH DELETE n", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatalf("clearing the database: %v", err)
	}
}

// owners are the ownership records of the tests (ownerOf).
var owners sync.Map

// ownerOf is the ownership record every load of a test and its subtests shares, as the loads
// of one job share its store.
func ownerOf(t *testing.T) *MemOwner {
	top, _, _ := strings.Cut(t.Name(), "/")
	o, _ := owners.LoadOrStore(top, NewMemOwner())
	return o.(*MemOwner)
}

// load runs one Load of src (every group) with small batches and fails t on error.
func load(t *testing.T, uri string, src sinks.Source, o Options) Result {
	t.Helper()
	res, err := loadErr(t.Context(), t, uri, src, o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func loadErr(ctx context.Context, t *testing.T, uri string, src sinks.Source, o Options) (Result, error) {
	t.Helper()
	if o.Dialect == "" {
		o.Dialect = cypher.Neo4j
	}
	o.URI = uri
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Owner == nil {
		o.Owner = ownerOf(t)
	}
	if o.VectorDims == 0 {
		o.VectorDims = 3
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

// snapshot renders the whole database as sorted text (harness.Neo4jSnapshot): every node with
// its labels and properties, every relationship with its type, endpoints and properties, values
// with their Go types.
func snapshot(t *testing.T, uri string) string { return strings.Join(harness.Graph(t, uri), "\n") }

func TestNeo4jLoadReadBack(t *testing.T) {
	uri, drv := neo4jDB(t)
	src := sinkstest.Sample()
	res := load(t, uri, src, Options{BatchSize: 2})
	want := map[string]int{"Episodic": 3, "Entity": 4, "Entity:Location": 2, "Entity:Person": 1, "Community": 1,
		"RELATES_TO": 2, "MENTIONS": 3, "HAS_MEMBER": 2}
	if !reflect.DeepEqual(res.Counts, want) {
		t.Errorf("counts = %v, want %v", res.Counts, want)
	}
	if res.Nodes != 8 || res.Edges != 7 || res.Groups != 2 || res.Deleted != 0 {
		t.Errorf("result = %+v", res)
	}
	for _, name := range res.IndexesPopulating {
		if !slices.Contains(cypher.IndexNames(cypher.VectorIndex), name) {
			t.Errorf("index %s reported populating: only vector indexes populate after the load", name)
		}
	}
	readBack(t, drv, src, func(p map[string]any) map[string]any { return p })
	checkIndexes(t, drv)
}

// readBack requires every node and relationship of src to read back with its row's properties
// (what the database returns passed through stored first).
func readBack(t *testing.T, drv neo4j.DriverWithContext, src sinks.Source, stored func(map[string]any) map[string]any) {
	t.Helper()
	ctx := t.Context()
	edges, err := sinkstest.AllEntityEdges(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	var rows []cypher.Row
	// The stored properties: row.props, and the embedding (row.embedding) under its property name.
	embedded := func(row cypher.Row, prop string) cypher.Row {
		if v, ok := row[cypher.KeyEmbedding]; ok {
			row[cypher.KeyProps].(cypher.Row)[prop] = v
		}
		return row
	}
	_ = sinkstest.Walk(ctx, src, sinkstest.Visitor{
		Episode:   func(e graph.Episode) { rows = append(rows, cypher.EpisodeRow(e, edges[e.UUID])) },
		Entity:    func(e graph.Entity) { rows = append(rows, embedded(cypher.EntityRow(e), "name_embedding")) },
		Community: func(c graph.Community) { rows = append(rows, embedded(cypher.CommunityRow(c), "name_embedding")) },
		Fact:      func(f graph.Fact) { rows = append(rows, embedded(cypher.FactRow(f), "fact_embedding")) },
		Mention:   func(m graph.Mention) { rows = append(rows, cypher.MentionRow(m)) },
	})
	if len(rows) != 13 {
		t.Fatalf("%d rows, want 13", len(rows))
	}
	for _, row := range rows {
		uuid := row[cypher.KeyUUID].(string)
		query := "MATCH (n {uuid: $u}) RETURN properties(n) AS p"
		if _, edge := row[cypher.KeySource]; edge {
			query = "MATCH ()-[n {uuid: $u}]->() RETURN properties(n) AS p"
		}
		got, err := neo4j.ExecuteQuery(ctx, drv, query, map[string]any{"u": uuid}, neo4j.EagerResultTransformer)
		if err != nil || len(got.Records) != 1 {
			t.Fatalf("reading %s: %v (%d records)", uuid, err, len(got.Records))
		}
		p, _ := got.Records[0].Get("p")
		if diff := compareProps(row[cypher.KeyProps].(cypher.Row), stored(p.(map[string]any))); diff != "" {
			t.Errorf("%s: %s", uuid, diff)
		}
	}
	// Labels of the custom entity types.
	got, err := neo4j.ExecuteQuery(ctx, drv, "MATCH (n:Entity:Person) RETURN n.name AS name, labels(n) AS l", nil, neo4j.EagerResultTransformer)
	if err != nil || len(got.Records) != 1 {
		t.Fatalf("person: %v", err)
	}
	if l, _ := got.Records[0].Get("l"); fmt.Sprint(l) != "[Entity Person]" {
		t.Errorf("labels = %v", l)
	}
}

// compareProps reports the first difference between the row's props and the stored ones:
// times must come back as the same instant in UTC, lists element by element.
func compareProps(want cypher.Row, got map[string]any) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d properties stored, %d written: %v", len(got), len(want), got)
	}
	for k, w := range want {
		g := got[k]
		switch w := w.(type) {
		case time.Time:
			gt, ok := g.(time.Time)
			if !ok || !gt.Equal(w) || gt.Location().String() != "UTC" {
				return fmt.Sprintf("%s = %#v, want %v in UTC", k, g, w)
			}
		case []float64, []string, []int64, []bool:
			gl, ok := g.([]any)
			wv := reflect.ValueOf(w)
			if !ok || len(gl) != wv.Len() {
				return fmt.Sprintf("%s = %#v, want %v", k, g, w)
			}
			for i := range gl {
				if !reflect.DeepEqual(gl[i], wv.Index(i).Interface()) {
					return fmt.Sprintf("%s[%d] = %#v, want %#v", k, i, gl[i], wv.Index(i).Interface())
				}
			}
		default:
			if !reflect.DeepEqual(g, w) {
				return fmt.Sprintf("%s = %#v, want %#v", k, g, w)
			}
		}
	}
	return ""
}

// checkIndexes requires every Graphiti index name and our vector indexes to exist and, once the
// vector indexes have finished populating (the loader does not wait for them), to be online.
func checkIndexes(t *testing.T, drv neo4j.DriverWithContext) {
	t.Helper()
	if _, err := neo4j.ExecuteQuery(t.Context(), drv, "CALL db.awaitIndexes(300)", nil, neo4j.EagerResultTransformer); err != nil {
		t.Fatal(err)
	}
	have := indexStates(t, drv)
	for _, kind := range []string{cypher.RangeIndex, cypher.TextIndex, cypher.VectorIndex} {
		for _, name := range cypher.IndexNames(kind) {
			if !strings.HasSuffix(have[name], "/ONLINE") {
				t.Errorf("index %s: %q, want an online index", name, have[name])
			}
			if want := map[string]string{cypher.TextIndex: "FULLTEXT/", cypher.VectorIndex: "VECTOR/"}[kind]; !strings.HasPrefix(have[name], want) {
				t.Errorf("index %s is %s, want %s", name, have[name], want)
			}
		}
	}
}

func TestNeo4jLoadTwiceAndKilled(t *testing.T) {
	uri, drv := neo4jDB(t)
	load(t, uri, sinkstest.Sample(), Options{BatchSize: 2})
	clean := snapshot(t, uri)
	if again := load(t, uri, sinkstest.Sample(), Options{BatchSize: 3}); again.Deleted != 0 || again.LabelsRemoved != 0 {
		t.Errorf("second load changed things: %+v", again)
	}
	if got := snapshot(t, uri); got != clean {
		t.Errorf("loading twice changed the graph:\n%s\n---\n%s", got, clean)
	}
	// Kill loads at several points (cancel the context from inside the source stream, with
	// batches in flight), then load again: the result equals the clean load.
	// A full load streams 11 of these records.
	for _, after := range []int64{1, 3, 5, 7, 9} {
		t.Run(fmt.Sprintf("killed after %d rows", after), func(t *testing.T) {
			clearDB(t, drv)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			src := &cancelling{MemSource: sinkstest.Sample(), after: after, cancel: cancel}
			if _, err := loadErr(ctx, t, uri, src, Options{BatchSize: 1}); !errors.Is(err, context.Canceled) {
				t.Fatalf("killed load: err = %v, want context.Canceled", err)
			}
			partial := snapshot(t, uri)
			if partial == clean {
				t.Fatalf("the killed load wrote everything")
			}
			t.Logf("killed load left %d nodes and relationships", strings.Count(partial, "\n")+1)
			load(t, uri, sinkstest.Sample(), Options{BatchSize: 2})
			if got := snapshot(t, uri); got != clean {
				t.Errorf("graph after a killed and a full load differs:\n%s\n---\n%s", got, clean)
			}
		})
	}
}

// cancelling cancels a context once its streams have produced after entities, facts and
// mentions together. The loader's sessions stream groups at once, so the count is atomic.
type cancelling struct {
	*sinks.MemSource
	after  int64
	n      atomic.Int64
	cancel func()
}

func (c *cancelling) tick() {
	if c.n.Add(1) == c.after {
		c.cancel()
	}
}

func (c *cancelling) EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error {
	return c.MemSource.EachEntity(ctx, group, func(e graph.Entity) error { c.tick(); return fn(e) })
}

func (c *cancelling) EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error {
	return c.MemSource.EachFact(ctx, group, func(f graph.Fact) error { c.tick(); return fn(f) })
}

func (c *cancelling) EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error {
	return c.MemSource.EachMention(ctx, group, func(m graph.Mention) error { c.tick(); return fn(m) })
}

// changed is the sample after a later run: the Lyon fact merged away, Alice retyped from
// Person to Agent, the community recomputed with another member set (so another uuid).
func changed() *sinks.MemSource {
	src := sinkstest.Sample()
	src.FactList = src.FactList[1:]
	src.FactVersionList = src.FactVersionList[2:]
	src.EntityList[3].Labels = []string{"Agent"}
	c := &src.CommunityList[0]
	c.Members = []string{src.EntityList[2].UUID, src.EntityList[3].UUID}
	c.UUID = graph.CommunityID(c.GroupID, c.Members)
	return src
}

func TestNeo4jLoadRemovesStale(t *testing.T) {
	uri, drv := neo4jDB(t)
	load(t, uri, changed(), Options{})
	want := snapshot(t, uri)
	clearDB(t, drv)
	load(t, uri, sinkstest.Sample(), Options{})
	res := load(t, uri, changed(), Options{BatchSize: 1})
	// Deleted: the Lyon fact, the old community with its 2 HAS_MEMBER edges. Removed: Person.
	if res.Deleted != 4 || res.LabelsRemoved != 1 {
		t.Errorf("result = %+v, want 4 deleted and 1 label removed", res)
	}
	if got := snapshot(t, uri); got != want {
		t.Errorf("incremental load differs from a clean load:\n%s\n---\n%s", got, want)
	}
	if res.Counts["Entity:Agent"] != 1 || res.Counts["Entity:Person"] != 0 || res.Counts["RELATES_TO"] != 1 {
		t.Errorf("counts = %v", res.Counts)
	}
}

func TestNeo4jLoadFailsOnMissingEndpoint(t *testing.T) {
	uri, _ := neo4jDB(t)
	src := sinkstest.Sample()
	src.FactList[0].TargetUUID = graph.EntityID("user-1", "nowhere")
	_, err := loadErr(t.Context(), t, uri, src, Options{})
	if err == nil || !strings.Contains(err.Error(), "RELATES_TO") || !strings.Contains(err.Error(), "missing") {
		t.Errorf("err = %v, want a missing RELATES_TO relationship", err)
	}
}

// TestNeo4jLoadBesideForeignIndexNames loads into a database that already holds an index
// equivalent to one of ours under another name: CREATE … IF NOT EXISTS creates none, so the
// wait for our index by name fails and falls back to waiting for every index.
func TestNeo4jLoadBesideForeignIndexNames(t *testing.T) {
	uri, drv := neo4jDB(t)
	exec := func(q string) {
		t.Helper()
		if _, err := neo4j.ExecuteQuery(t.Context(), drv, q, nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatal(err)
		}
	}
	dropConstraints(t.Context(), drv)
	exec("DROP INDEX entity_uuid IF EXISTS")
	exec("CREATE INDEX someone_elses_entity_uuid FOR (n:Entity) ON (n.uuid)")
	t.Cleanup(func() {
		_, _ = neo4j.ExecuteQuery(context.Background(), drv, "DROP INDEX someone_elses_entity_uuid IF EXISTS", nil, neo4j.EagerResultTransformer)
	})
	res := load(t, uri, sinkstest.Sample(), Options{})
	if res.Counts["Entity"] != 4 || res.FreshGroups != 2 {
		t.Errorf("result = %+v", res)
	}
	// The index of another name stands where the Entity uuid constraint would go: the load
	// leaves it and says the constraint is missing; the other constraints are there.
	if len(res.ConstraintsMissing) != 1 || !strings.HasPrefix(res.ConstraintsMissing[0], "entity_uuid: ") {
		t.Errorf("constraints missing = %q, want entity_uuid", res.ConstraintsMissing)
	}
}

// dropIndexes drops every constraint and index but Neo4j's own token lookups.
func dropIndexes(t *testing.T, drv neo4j.DriverWithContext) {
	t.Helper()
	dropConstraints(t.Context(), drv)
	res, err := neo4j.ExecuteQuery(t.Context(), drv, "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		name, _ := r.Get("name")
		if _, err := neo4j.ExecuteQuery(t.Context(), drv, "DROP INDEX `"+name.(string)+"`", nil, neo4j.EagerResultTransformer); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNeo4jLoadIndexModes: a load in each index mode into a database without Graphiti's
// indexes writes the same graph as an online load, names as populating only indexes it does not
// await (cypher.IndexesAfterLoad), and leaves every index of the schema, with its type, to come
// online. In the graphiti mode (the default) every range and full-text index is online when Load
// returns.
func TestNeo4jLoadIndexModes(t *testing.T) {
	uri, drv := neo4jDB(t)
	src := sinkstest.Sample()
	load(t, uri, src, Options{BatchSize: 2, Indexes: cypher.IndexesOnline})
	want := snapshot(t, uri)
	for _, mode := range []cypher.IndexMode{cypher.IndexesGraphiti, cypher.IndexesBackground} {
		t.Run(string(mode), func(t *testing.T) {
			clearDB(t, drv)
			dropIndexes(t, drv)
			res := load(t, uri, src, Options{BatchSize: 2, Indexes: mode})
			after := cypher.IndexesAfterLoad(cypher.SchemaOptions{VectorDims: 3, Indexes: mode})
			for _, name := range res.IndexesPopulating {
				if !slices.Contains(after, name) {
					t.Errorf("index %s reported populating: not one created after the load", name)
				}
			}
			if mode == cypher.IndexesGraphiti {
				if bad := notOnline(t, drv, slices.Concat(cypher.IndexNames(cypher.RangeIndex), cypher.IndexNames(cypher.TextIndex))); len(bad) > 0 {
					t.Errorf("Graphiti's indexes not online when Load returned: %v", bad)
				}
			}
			if got := snapshot(t, uri); got != want {
				t.Errorf("the %s load's graph differs from the online load's", mode)
			}
			checkIndexes(t, drv)
		})
	}
}

// notOnline lists those of names that SHOW INDEXES reports missing or not ONLINE.
func notOnline(t *testing.T, drv neo4j.DriverWithContext, names []string) []string {
	t.Helper()
	have := indexStates(t, drv)
	var bad []string
	for _, n := range names {
		if !strings.HasSuffix(have[n], "/ONLINE") {
			bad = append(bad, n)
		}
	}
	return bad
}

// indexStates maps the name of every index SHOW INDEXES lists to its "TYPE/STATE".
func indexStates(t *testing.T, drv neo4j.DriverWithContext) map[string]string {
	t.Helper()
	res, err := neo4j.ExecuteQuery(t.Context(), drv, "SHOW INDEXES YIELD name, type, state RETURN name, type, state", nil, neo4j.EagerResultTransformer)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, r := range res.Records {
		n, _ := r.Get("name")
		typ, _ := r.Get("type")
		st, _ := r.Get("state")
		have[n.(string)] = typ.(string) + "/" + st.(string)
	}
	return have
}
