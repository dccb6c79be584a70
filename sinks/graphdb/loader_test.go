package graphdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/golden"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// fakeLoad loads every group of src into db and records the done calls.
func fakeLoad(t *testing.T, l *Loader, src sinks.Source) (Result, [][]string, error) {
	t.Helper()
	groups, err := src.Groups(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var done [][]string
	res, err := l.Load(t.Context(), src, groups, func(_ context.Context, gs []string) error {
		done = append(done, slices.Clone(gs))
		if db, ok := l.ex.(*fakeDB); ok {
			db.log = append(db.log, fmt.Sprintf("done %v", gs))
		}
		return nil
	})
	return res, done, err
}

// TestLoadTranscriptGolden records every statement two loads send, in order, for Memgraph in
// analytical and in transactional mode, for Neo4j (the default index mode and online) and for
// FalkorDB (every call in the graph of its group), with
// batches of 2 rows and a chunk per group: a load of new groups, then of the same groups changed.
func TestLoadTranscriptGolden(t *testing.T) {
	tests := []struct {
		file string
		d    cypher.Dialect
		o    Options
	}{
		{"load.memgraph.golden", cypher.Memgraph, Options{BatchSize: 2, ChunkRows: 1, Analytical: true, VectorDims: 3, VectorCapacity: 64}},
		{"load.memgraph-transactional.golden", cypher.Memgraph, Options{BatchSize: 2, ChunkRows: 1, VectorDims: 3, VectorCapacity: 64}},
		{"load.neo4j.golden", cypher.Neo4j, Options{BatchSize: 2, ChunkRows: 1, VectorDims: 3}},
		{"load.neo4j-online.golden", cypher.Neo4j, Options{BatchSize: 2, ChunkRows: 1, VectorDims: 3, Indexes: cypher.IndexesOnline}},
		{"load.falkordb.golden", cypher.FalkorDB, Options{BatchSize: 2, ChunkRows: 1, VectorDims: 3}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			db := newFakeDB()
			res, done, err := fakeLoad(t, fakeLoader(tc.d, tc.o, db), sinkstest.Sample())
			if err != nil {
				t.Fatal(err)
			}
			if res.Nodes != 8 || res.Edges != 7 || res.Groups != 2 {
				t.Errorf("result = %+v", res)
			}
			if want := [][]string{{"user-1"}, {"user_2"}}; !tc.o.Analytical && !slices.EqualFunc(done, want, slices.Equal) {
				t.Errorf("done = %v, want one call per chunk %v", done, want)
			}
			if want := [][]string{{"user-1", "user_2"}}; tc.o.Analytical && !slices.EqualFunc(done, want, slices.Equal) {
				t.Errorf("done = %v, want one call after the snapshot %v", done, want)
			}
			first := strings.Join(db.log, "\n") + "\n\n# graph\n" + db.state() + "\n"
			// A second load of the sample as a later run changes it: the groups are held now, so
			// they are written with MERGE and settled (stale elements deleted, labels removed).
			db.log = nil
			again, _, err := fakeLoad(t, fakeLoader(tc.d, tc.o, db), changed())
			if err != nil {
				t.Fatal(err)
			}
			if again.FreshGroups != 0 || again.Deleted != 4 || again.LabelsRemoved != 1 {
				t.Errorf("second load: %+v", again)
			}
			second := strings.Join(db.log, "\n") + "\n\n# graph\n" + db.state() + "\n"
			golden.Check(t, filepath.Join("testdata", tc.file), []byte("# first load: new groups (CREATE)\n"+first+
				"\n# second load: the sample changed by a later run (MERGE, settle)\n"+second))
		})
	}
}

func TestLoadRetriesTransientErrors(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		failures  int
		attempts  int
		wantErr   bool
		wantTries int
	}{
		{"connectivity", connErr(), 2, 5, false, 2},
		{"deadlock", &neo4j.Neo4jError{Code: "Neo.TransientError.Transaction.DeadlockDetected", Msg: "deadlock"}, 1, 5, false, 1},
		{"memgraph conflict", &neo4j.Neo4jError{Code: "Memgraph.TransientError.MemgraphError.MemgraphError", Msg: "Cannot resolve conflicting transactions"}, 1, 5, false, 1},
		{"attempts exhausted", connErr(), 3, 3, true, 2},
		{"syntax error not retried", &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SyntaxError", Msg: "bad"}, 1, 5, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := newFakeDB()
			left := tc.failures
			db.fail = func(c string) error {
				if strings.Contains(c, "[r:RELATES_TO") && left > 0 {
					left--
					return tc.err
				}
				return nil
			}
			res, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{MaxAttempts: tc.attempts, RetryBase: 1}, db), sinkstest.Sample())
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if res.Retries != tc.wantTries {
				t.Errorf("retries = %d, want %d", res.Retries, tc.wantTries)
			}
			if err == nil && res.Counts["RELATES_TO"] != 2 {
				t.Errorf("counts after retries = %v", res.Counts)
			}
		})
	}
}

func TestAnalyticalLoadFailureLeavesBulkMode(t *testing.T) {
	db := newFakeDB()
	db.fail = func(c string) error {
		if strings.Contains(c, "[r:MENTIONS") {
			return &neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "out of memory"}
		}
		return nil
	}
	_, done, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{Analytical: true}, db), sinkstest.Sample())
	if err == nil || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("err = %v", err)
	}
	if len(done) != 0 {
		t.Errorf("groups recorded as loaded without a snapshot: %v", done)
	}
	if log := withoutLeases(db.log); !strings.Contains(log[len(log)-1], "STORAGE MODE IN_MEMORY_TRANSACTIONAL") {
		last := log[len(log)-1]
		t.Errorf("last statement %q, want the switch back to transactional", last)
	}
	if slices.ContainsFunc(db.log, func(s string) bool { return strings.Contains(s, "CREATE SNAPSHOT") }) {
		t.Errorf("snapshot taken after a failed load")
	}
}

func TestSchemaAlreadyExists(t *testing.T) {
	exists := func(c string) error {
		if strings.HasPrefix(c, "CREATE TEXT") || strings.HasPrefix(c, "CREATE FULLTEXT") {
			return &neo4j.Neo4jError{Code: "Memgraph.ClientError.MemgraphError.MemgraphError", Msg: "Text index edge_name_and_fact already exists."}
		}
		return nil
	}
	for _, d := range []cypher.Dialect{cypher.Memgraph, cypher.Neo4j} {
		db := newFakeDB()
		db.fail = exists
		_, _, err := fakeLoad(t, fakeLoader(d, Options{}, db), sinkstest.Sample())
		if (err != nil) != (d == cypher.Neo4j) {
			t.Errorf("%s: err = %v; only memgraph tolerates an existing text index", d, err)
		}
	}
}

func TestLoadRemovesStaleFake(t *testing.T) {
	clean := newFakeDB()
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{}, clean), changed()); err != nil {
		t.Fatal(err)
	}
	db := newFakeDB()
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{}, db), sinkstest.Sample()); err != nil {
		t.Fatal(err)
	}
	res, _, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{}, db), changed())
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 4 || res.LabelsRemoved != 1 {
		t.Errorf("result = %+v", res)
	}
	if db.state() != clean.state() {
		t.Errorf("incremental state:\n%s\nclean state:\n%s", db.state(), clean.state())
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(*sinks.MemSource)
		want   string
	}{
		{"reserved label", func(s *sinks.MemSource) { s.EntityList[0].Labels = []string{"Community"} }, "reserved"},
		{"invalid label", func(s *sinks.MemSource) { s.EntityList[0].Labels = []string{"Bad Label"} }, "invalid label"},
		{"dangling fact", func(s *sinks.MemSource) { s.FactList[0].SourceUUID = "nobody" }, "missing"},
		{"repeated entity", func(s *sinks.MemSource) { s.EntityList = append(s.EntityList, s.EntityList[1]) }, "appears twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := sinkstest.Sample()
			tc.change(src)
			_, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{}, newFakeDB()), src)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	if err := (&Options{Dialect: cypher.Neo4j, Analytical: true}).defaults(); err == nil {
		t.Errorf("analytical mode accepted for neo4j")
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{connErr(), true},
		{fmt.Errorf("wrapped: %w", connErr()), true},
		{&neo4j.Neo4jError{Code: "Neo.TransientError.General.DatabaseUnavailable"}, true},
		{&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.ConstraintValidationFailed"}, false},
		{context.Canceled, false},
		{fmt.Errorf("%w: %w", context.Canceled, connErr()), false},
		{errors.New("plain"), false},
	}
	for _, tc := range tests {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("Transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// stopping closes stop when the first entity is streamed, in the load of the first group.
type stopping struct {
	*sinks.MemSource
	stop chan struct{}
	n    int
}

func (s *stopping) EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error {
	return s.MemSource.EachEntity(ctx, group, func(e graph.Entity) error {
		if s.n++; s.n == 1 {
			close(s.stop)
		}
		return fn(e)
	})
}

func TestLoadStopFinishesTheChunk(t *testing.T) {
	for _, analytical := range []bool{false, true} {
		t.Run(fmt.Sprint("analytical=", analytical), func(t *testing.T) {
			db := newFakeDB()
			stop := make(chan struct{})
			src := &stopping{MemSource: sinkstest.Sample(), stop: stop}
			l := fakeLoader(cypher.Memgraph, Options{ChunkRows: 1, Analytical: analytical, Stop: stop}, db)
			res, done, err := fakeLoad(t, l, src)
			if !errors.Is(err, ErrStopped) {
				t.Fatalf("err = %v, want ErrStopped", err)
			}
			// Stop closed while the first group was written: it is still loaded and recorded.
			if want := [][]string{{"user-1"}}; !slices.EqualFunc(done, want, slices.Equal) || res.Groups != 1 {
				t.Errorf("done = %v, groups = %d; want %v", done, res.Groups, want)
			}
			post := cypher.PostLoad(cypher.Memgraph, l.schemaOptions())
			if log := withoutLeases(db.log); !strings.Contains(log[len(log)-2], post[len(post)-1].Cypher) {
				t.Errorf("PostLoad did not run before the groups were recorded: %v", log[len(log)-3:])
			}
		})
	}
}

// manyGroups is the sample plus 12 synthetic groups of entities and facts.
func manyGroups() *sinks.MemSource {
	src := sinkstest.Sample()
	more := synthetic(12, 5, 7, false)
	src.EntityList = append(src.EntityList, more.EntityList...)
	src.FactList = append(src.FactList, more.FactList...)
	return src
}

// TestLoadSessionsSameGraph loads with several workers and small chunks and requires the graph,
// the counts and the recorded groups of a one-session load.
func TestLoadSessionsSameGraph(t *testing.T) {
	one := newFakeDB()
	want, wantDone, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{ChunkRows: 30, BatchSize: 4}, one), manyGroups())
	if err != nil {
		t.Fatal(err)
	}
	for _, sessions := range []int{2, 5} {
		db := newFakeDB()
		got, done, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{Sessions: sessions, ChunkRows: 30, BatchSize: 4}, db), manyGroups())
		if err != nil {
			t.Fatal(err)
		}
		if db.state() != one.state() {
			t.Errorf("sessions=%d: graph differs", sessions)
		}
		if !reflect.DeepEqual(got.Counts, want.Counts) || got.Nodes != want.Nodes || got.Edges != want.Edges || got.FreshGroups != 14 {
			t.Errorf("sessions=%d: result %+v, want %+v", sessions, got, want)
		}
		if all := slices.Concat(done...); !slices.Equal(all, slices.Concat(wantDone...)) || len(done) < 2 {
			t.Errorf("sessions=%d: recorded %v, want every group once, in order, over several chunks", sessions, done)
		}
	}
}

// TestCreateRetriedAsMerge loses the answer of a committed CREATE batch: the batch is tried
// again as MERGE, so nothing is written twice.
func TestCreateRetriedAsMerge(t *testing.T) {
	clean := newFakeDB()
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{}, clean), sinkstest.Sample()); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"CREATE (n:Entity:Location)", "CREATE (a)-[r:RELATES_TO]"} {
		db := newFakeDB()
		lost := false
		db.failAfter = func(c string) error {
			if strings.Contains(c, kind) && !lost {
				lost = true
				return connErr()
			}
			return nil
		}
		res, _, err := fakeLoad(t, fakeLoader(cypher.Memgraph, Options{RetryBase: 1}, db), sinkstest.Sample())
		if err != nil {
			t.Fatal(err)
		}
		if !lost || res.Retries != 1 {
			t.Errorf("%s: lost %v, retries %d", kind, lost, res.Retries)
		}
		retried := slices.IndexFunc(db.log, func(s string) bool { return strings.HasPrefix(s, "  failed after commit") })
		if retried < 0 || !strings.Contains(db.log[retried+1], "MERGE") {
			t.Errorf("%s: the retry after %q is %q, want the MERGE form", kind, db.log[retried], db.log[retried+1])
		}
		if db.state() != clean.state() {
			t.Errorf("%s: graph after a lost answer:\n%s\nwant:\n%s", kind, db.state(), clean.state())
		}
	}
}

// TestFailedFreshLoadCompletes fails a fresh load for good in the middle (after the nodes of a
// group), then loads again: the partial group is held now, written with MERGE and settled, and
// the graph equals a clean load.
func TestFailedFreshLoadCompletes(t *testing.T) {
	clean := newFakeDB()
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{}, clean), manyGroups()); err != nil {
		t.Fatal(err)
	}
	db := newFakeDB()
	db.fail = func(c string) error {
		if strings.Contains(c, "[r:MENTIONS") {
			return &neo4j.Neo4jError{Code: "Neo.ClientError.Statement.SemanticError", Msg: "failed for good"}
		}
		return nil
	}
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{}, db), manyGroups()); err == nil {
		t.Fatal("the failing load succeeded")
	}
	db.fail = nil
	res, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{}, db), manyGroups())
	if err != nil {
		t.Fatal(err)
	}
	if res.FreshGroups == res.Groups || !slices.ContainsFunc(db.log, func(s string) bool { return strings.Contains(s, "MERGE (n:Episodic") }) {
		t.Errorf("result %+v: the partial groups were not written with MERGE", res)
	}
	if db.state() != clean.state() {
		t.Errorf("graph after a failed and a full load:\n%s\nwant:\n%s", db.state(), clean.state())
	}
}

func TestLoadBatchBounds(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want int // batches
	}{
		{"rows", Options{BatchSize: 1}, 15},
		{"bytes", Options{BatchBytes: 1}, 15},
		{"defaults", Options{}, 8}, // one batch per statement and chunk: 4 node and 3 edge statements, group user_2 in the same chunk
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, tc.o, newFakeDB()), sinkstest.Sample())
			if err != nil {
				t.Fatal(err)
			}
			if res.Batches != tc.want {
				t.Errorf("batches = %d, want %d", res.Batches, tc.want)
			}
		})
	}
}

func TestSchemaFallback(t *testing.T) {
	db := newFakeDB()
	db.fail = func(c string) error {
		if strings.Contains(c, "CALL db.awaitIndex(name") {
			return &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.IndexNotFound", Msg: "No such index 'entity_uuid'"}
		}
		return nil
	}
	if _, _, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{}, db), sinkstest.Sample()); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(db.log, "\n"), "tx   CALL db.awaitIndexes(300)"); n != 2 {
		t.Errorf("%d fallbacks run, want one per failed wait (PreLoad, PostLoad)", n)
	}
}

// TestVectorIndexesPopulating: on Neo4j a load reports the vector indexes still populating when
// it returns, and fails (recording no group after the schema) when one failed to populate;
// Memgraph, which builds indexes as it creates them, is not asked.
func TestVectorIndexesPopulating(t *testing.T) {
	tests := []struct {
		name    string
		d       cypher.Dialect
		states  map[string]string
		pending []string
		err     string
	}{
		{"online", cypher.Neo4j, nil, nil, ""},
		{"populating", cypher.Neo4j, map[string]string{"fact_embedding_edge_index": "POPULATING", "entity_uuid": "POPULATING"},
			[]string{"fact_embedding_edge_index"}, ""},
		{"failed", cypher.Neo4j, map[string]string{"name_embedding_entity_index": "FAILED"}, nil, "name_embedding_entity_index failed to populate"},
		{"memgraph", cypher.Memgraph, map[string]string{"fact_embedding_edge_index": "POPULATING"}, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := newFakeDB()
			db.indexStates = tc.states
			res, done, err := fakeLoad(t, fakeLoader(tc.d, Options{VectorDims: 3}, db), sinkstest.Sample())
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if tc.err != "" && len(done) != 0 {
				t.Errorf("groups recorded after a failed index: %v", done)
			}
			if !slices.Equal(res.IndexesPopulating, tc.pending) {
				t.Errorf("populating = %v, want %v", res.IndexesPopulating, tc.pending)
			}
			if asked := strings.Contains(strings.Join(db.log, "\n"), "read SHOW INDEXES"); asked != (tc.d == cypher.Neo4j) {
				t.Errorf("SHOW INDEXES asked: %v", asked)
			}
			if tc.err == "" && res.SchemaSeconds <= 0 {
				t.Errorf("schema seconds = %v", res.SchemaSeconds)
			}
		})
	}
}

// TestWorkersEndWithTheContext: a load cancelled while its workers wait for groups ends with the
// context's error (it must not go on with finished workers).
func TestWorkersEndWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	l := fakeLoader(cypher.Neo4j, Options{}, newFakeDB())
	ws := l.startWorkers(ctx, newChunk(), &statements{l: l, m: map[string]stmt{}}, sinkstest.Sample())
	ws.free <- struct{}{} // the one worker is busy, as far as acquire knows
	cancel()
	if err := ws.acquire(); !errors.Is(err, context.Canceled) {
		t.Errorf("acquire after cancellation: %v, want context.Canceled", err)
	}
}

// TestIndexModes: a Neo4j load in each index mode. online: the vector indexes are created
// before the first write and PostLoad awaits the range and full-text indexes (two awaits).
// graphiti (the default, ""): the vector indexes are created after the last write and after
// PostLoad's wait, so the range and full-text indexes are online and only the vector indexes
// may still populate. background: only the node lookup indexes are awaited; every other index
// comes after the last write, and those SHOW INDEXES reports not online are named in the result.
// Memgraph refuses background and an unknown mode is an error.
func TestIndexModes(t *testing.T) {
	tests := []struct {
		mode         cypher.IndexMode
		vectorBefore bool     // the vector index comes before the first write
		awaits       int      // db.awaitIndex statements
		pending      []string // of edge_name_and_fact and fact_embedding_edge_index, both POPULATING
	}{
		{cypher.IndexesOnline, true, 2, []string{"fact_embedding_edge_index"}},
		{"", false, 2, []string{"fact_embedding_edge_index"}},
		{cypher.IndexesGraphiti, false, 2, []string{"fact_embedding_edge_index"}},
		{cypher.IndexesBackground, false, 1, []string{"edge_name_and_fact", "fact_embedding_edge_index"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint("indexes=", tc.mode), func(t *testing.T) {
			db := newFakeDB()
			db.indexStates = map[string]string{"edge_name_and_fact": "POPULATING", "fact_embedding_edge_index": "POPULATING"}
			res, done, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{VectorDims: 3, Indexes: tc.mode}, db), sinkstest.Sample())
			if err != nil || len(done) == 0 {
				t.Fatalf("load: %v, done %v", err, done)
			}
			firstWrite, lastWrite, vector, awaits, lastAwait := -1, -1, -1, 0, -1
			for i, line := range db.log {
				switch {
				case strings.Contains(line, "UNWIND $rows"):
					if firstWrite < 0 {
						firstWrite = i
					}
					lastWrite = i
				case strings.Contains(line, "CREATE VECTOR INDEX fact_embedding_edge_index"):
					vector = i
				case strings.Contains(line, "db.awaitIndex("):
					awaits++
					lastAwait = i
				}
			}
			if firstWrite < 0 || vector < 0 {
				t.Fatalf("no write or no vector index in the transcript:\n%s", strings.Join(db.log, "\n"))
			}
			switch {
			case tc.vectorBefore && vector > firstWrite:
				t.Errorf("vector index at line %d, after the first write (%d)", vector, firstWrite)
			case !tc.vectorBefore && (vector < lastWrite || vector < lastAwait):
				t.Errorf("vector index at line %d, before the last write (%d) or the last await (%d)", vector, lastWrite, lastAwait)
			}
			if awaits != tc.awaits {
				t.Errorf("%d awaits, want %d", awaits, tc.awaits)
			}
			if !slices.Equal(res.IndexesPopulating, tc.pending) {
				t.Errorf("populating %v, want %v", res.IndexesPopulating, tc.pending)
			}
		})
	}
	if err := (&Options{Dialect: cypher.Memgraph, Indexes: cypher.IndexesBackground}).defaults(); err == nil {
		t.Error("memgraph with background indexes: no error")
	}
	if err := (&Options{Dialect: cypher.Neo4j, Indexes: "later"}).defaults(); err == nil {
		t.Error("an unknown index mode: no error")
	}
}
