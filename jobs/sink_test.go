package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/tests/harness"
)

// neo4jQuery runs a query on the test server and returns its records as maps.
func neo4jQuery(t *testing.T, uri, cypher string) []map[string]any {
	t.Helper()
	recs, err := harness.Neo4jQuery(t.Context(), uri, cypher)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// emptyNeo4j takes the test Neo4j for t and deletes everything in it.
func emptyNeo4j(t *testing.T) string {
	t.Helper()
	uri := testenv.Neo4jExclusive(t)
	if uri != "" {
		neo4jQuery(t, uri, "MATCH (n) DETACH DELETE n")
	}
	return uri
}

// graphSnapshot renders every node and relationship with labels, endpoints and properties.
func graphSnapshot(t *testing.T, uri string) string { return strings.Join(harness.Graph(t, uri), "\n") }

func TestRunLoadsNeo4jIncrementally(t *testing.T) {
	uri := emptyNeo4j(t)

	j := demoJob(t, "sink.kind=neo4j", "sink.uri="+uri, "sink.batch_size=7")
	rep := run(t, j)
	if rep.Load == nil || rep.Stages[LoadStage].Units == 0 || rep.Stages[LoadStage].Skipped != 0 {
		t.Fatalf("first run did not load every group: %+v %+v", rep.Stages[LoadStage], rep.Load)
	}
	groups := rep.Stages[LoadStage].Units
	counts := func() map[string]int64 {
		out := map[string]int64{}
		for _, r := range neo4jQuery(t, uri, "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS n") {
			out[r["l"].(string)] = r["n"].(int64)
		}
		for _, r := range neo4jQuery(t, uri, "MATCH ()-[r]->() RETURN type(r) AS l, count(*) AS n") {
			out[r["l"].(string)] = r["n"].(int64)
		}
		return out
	}
	c := counts()
	if c["Episodic"] != int64(rep.Episodes) || c["Entity"] != int64(rep.Entities) || c["RELATES_TO"] != int64(rep.Facts) ||
		c["MENTIONS"] != int64(rep.Mentions) || c["Community"] != int64(rep.Communities) {
		t.Errorf("neo4j holds %v; the report says %d episodes, %d entities, %d facts, %d mentions, %d communities",
			c, rep.Episodes, rep.Entities, rep.Facts, rep.Mentions, rep.Communities)
	}
	// Types as Graphiti reads them: zoned UTC datetimes, float lists, uuid lists.
	for _, r := range neo4jQuery(t, uri, "MATCH ()-[r:RELATES_TO]->() WHERE r.valid_at IS NOT NULL RETURN r.valid_at AS v, r.created_at AS c, r.fact_embedding AS e, r.episodes AS eps LIMIT 3") {
		for _, k := range []string{"v", "c"} {
			if tm, ok := r[k].(time.Time); !ok || tm.Location().String() != "UTC" {
				t.Errorf("%s = %#v, want a datetime in UTC", k, r[k])
			}
		}
		if e, ok := r["e"].([]any); !ok || len(e) != j.Embedder.Dimensions {
			t.Errorf("fact_embedding = %T of %d", r["e"], len(e))
		} else if _, ok := e[0].(float64); !ok {
			t.Errorf("fact_embedding[0] is %T", e[0])
		}
		if eps, ok := r["eps"].([]any); !ok || len(eps) == 0 {
			t.Errorf("episodes = %#v", r["eps"])
		}
	}
	first := graphSnapshot(t, uri)

	// A second run has nothing to load and changes nothing.
	again := run(t, j)
	if st := again.Stages[LoadStage]; st.Units != 0 || st.Skipped != groups || again.Load != nil {
		t.Errorf("second run: load %+v, result %+v; want every group skipped", st, again.Load)
	}
	if graphSnapshot(t, uri) != first {
		t.Errorf("a run with nothing to load changed the graph")
	}

	// One new message for one group: only that group is written again.
	extra := filepath.Join(t.TempDir(), "more.jsonl")
	line := `{"group_id":"alice","reference_time":"2024-06-01T10:00:00+09:00","speaker":"Alice","content":"I moved to Seoul last week and I work at Naver now."}` + "\n"
	if err := os.WriteFile(extra, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	j.Sources = append(j.Sources, Source{Path: extra, Format: "jsonl", Source: "message", Description: "chat history",
		Mapping: Mapping{Group: "group_id", ReferenceTime: "reference_time", Speaker: "speaker", Body: "content"}})
	third := run(t, j)
	if st := third.Stages[LoadStage]; st.Units != 1 || st.Skipped != groups-1 {
		t.Errorf("after one new message: load %+v, want 1 unit and %d skipped", st, groups-1)
	}
	incremental := graphSnapshot(t, uri)
	if incremental == first {
		t.Errorf("the new message changed nothing in the graph")
	}
	// The incremental graph equals a full reload of the same store into an empty database.
	neo4jQuery(t, uri, "MATCH (n) DETACH DELETE n")
	j.Sink.Reload = true
	full := run(t, j)
	if st := full.Stages[LoadStage]; st.Units != groups {
		t.Errorf("reload wrote %d groups, want %d", st.Units, groups)
	}
	if got := graphSnapshot(t, uri); got != incremental {
		t.Errorf("incremental load differs from a full reload")
	}
}

func TestSinkValidation(t *testing.T) {
	tests := []struct {
		sets []string
		want string
	}{
		{[]string{"sink.kind=neo4j"}, ""},
		{[]string{"sink.kind=memgraph", "sink.analytical=true", "sink.batch_size=2000"}, ""},
		{[]string{"sink.kind=neo4j", "sink.analytical=true"}, "sink.analytical"},
		{[]string{"sink.kind=neo4j", "sink.uri=http://x:7474"}, "sink.uri"},
		{[]string{"sink.kind=neo4j", "sink.uri=bolt://neo4j:secret@x:7687"}, "credentials"},
		{[]string{"sink.kind=memgraph", "sink.batch_size=-1"}, "sink.batch_size"},
		{[]string{"sink.kind=oracle"}, "sink.kind"},
		{[]string{"s3.endpoint=127.0.0.1:7070"}, "s3.endpoint"},
		{[]string{"sink.kind=neo4j", "sink.max_attempts=1", "sink.retry_seconds=0.05"}, ""},
		{[]string{"sink.kind=neo4j", "sink.max_attempts=-2"}, "sink.max_attempts"},
		{[]string{"sink.kind=neo4j", "sink.retry_seconds=-1"}, "sink.retry_seconds"},
		{[]string{"sink.kind=neo4j", "sink.retry_seconds=600"}, "sink.retry_seconds"},
		{[]string{"sink.kind=neo4j", "sink.batch_bytes=65536", "sink.sessions=4"}, ""},
		{[]string{"sink.kind=neo4j", "sink.batch_bytes=1073741824"}, "sink.batch_bytes"},
		{[]string{"sink.kind=neo4j", "sink.sessions=-1"}, "sink.sessions"},
		{[]string{"sink.kind=memgraph", "sink.sessions=17"}, "sink.sessions"},
		{[]string{"sink.kind=neo4j", "sink.indexes=background"}, ""},
		{[]string{"sink.kind=neo4j", "sink.indexes=online"}, ""},
		{[]string{"sink.kind=neo4j", "sink.indexes=graphiti"}, ""},
		{[]string{"sink.kind=memgraph", "sink.indexes=graphiti"}, ""},
		{[]string{"sink.indexes=graphiti"}, ""},
		{[]string{"sink.kind=memgraph", "sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.kind=neo4j", "sink.indexes=later"}, "sink.indexes"},
		{[]string{"sink.kind=falkordb"}, ""},
		{[]string{"sink.kind=falkordb", "sink.uri=rediss://db.example:6380"}, ""},
		{[]string{"sink.kind=falkordb", "sink.uri=bolt://x:7687"}, "sink.uri"},
		{[]string{"sink.kind=falkordb", "sink.uri=redis://u:p@x:6379"}, "credentials"},
		{[]string{"sink.kind=falkordb", "sink.database=g"}, "sink.database"},
		{[]string{"sink.kind=falkordb", "sink.indexes=background"}, "sink.indexes"},
		{[]string{"sink.kind=falkordb", "sink.analytical=true"}, "sink.analytical"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.sets, ","), func(t *testing.T) {
			_, err := Parse([]byte("sources: [{path: x.jsonl}]\n"), tc.sets, func(string) (string, bool) { return "", false })
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	j, err := Parse([]byte("sources: [{path: x.jsonl}]\nsink: {kind: memgraph}\n"), nil, func(string) (string, bool) { return "", false })
	if err != nil || j.Sink.URI != "bolt://127.0.0.1:7687" || j.Sink.BatchSize != 2000 || j.Sink.BatchBytes != 2<<20 ||
		j.Sink.Sessions != 2 || j.Sink.MaxAttempts != 10 || j.Sink.RetrySecs != 0.2 || j.Sink.Indexes != string(cypher.IndexesGraphiti) {
		t.Errorf("defaults: %+v, %v", j.Sink, err)
	}
	if j, err := Parse([]byte("sources: [{path: x.jsonl}]\nsink: {kind: falkordb}\n"), nil, func(string) (string, bool) { return "", false }); err != nil || j.Sink.URI != DefaultFalkorDBURI {
		t.Errorf("falkordb defaults: %+v, %v", j.Sink, err)
	}
	// A Neo4j load that creates the vector indexes after its writes (graphiti, the default, and
	// background) has its own bytes bound; online and Memgraph keep 2 MiB; a job's own bound wins.
	for _, tc := range []struct {
		sets []string
		want int
	}{
		{[]string{"sink.kind=neo4j"}, 8 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=background"}, 8 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=background", "sink.batch_bytes=1048576"}, 1 << 20},
		{[]string{"sink.kind=neo4j", "sink.indexes=online"}, 2 << 20},
		{[]string{"sink.kind=memgraph", "sink.indexes=graphiti"}, 2 << 20},
	} {
		j, err := Parse([]byte("sources: [{path: x.jsonl}]\n"), tc.sets, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%v: %v", tc.sets, err)
		}
		o := j.loadOptions(nil, nil).Sink
		if j.Sink.BatchBytes != tc.want || o.BatchBytes != tc.want || string(o.Indexes) != j.Sink.Indexes {
			t.Errorf("%v: batch bytes %d (loader %d), want %d; loader indexes %q, job %q", tc.sets, j.Sink.BatchBytes, o.BatchBytes, tc.want, o.Indexes, j.Sink.Indexes)
		}
	}
}

func TestSinkCredentials(t *testing.T) {
	env := map[string]string{DefaultSinkUsernameEnv: "u", DefaultSinkPasswordEnv: "p", "MY_USER": "me", "MY_PASS": "pw"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		sink       Sink
		user, pass string
		err        bool
	}{
		{Sink{}, "u", "p", false},
		{Sink{UsernameEnv: "MY_USER", PasswordEnv: "MY_PASS"}, "me", "pw", false},
		{Sink{UsernameEnv: "MISSING"}, "", "", true},
	}
	for _, tc := range tests {
		u, p, err := sinkCredentials(tc.sink, lookup)
		if u != tc.user || p != tc.pass || (err != nil) != tc.err {
			t.Errorf("%+v: %q %q %v", tc.sink, u, p, err)
		}
	}
	if u, p, err := sinkCredentials(Sink{}, func(string) (string, bool) { return "", false }); u != "" || p != "" || err != nil {
		t.Errorf("no variables: %q %q %v, want no authentication", u, p, err)
	}
}

// cancelOnLoad cancels the run once the load stage has written its first batch.
type cancelOnLoad struct {
	cancel  context.CancelFunc
	loading bool
}

func (c *cancelOnLoad) Start(stage string, _ int) { c.loading = stage == LoadStage }
func (c *cancelOnLoad) Add(int) {
	if c.loading {
		c.cancel()
	}
}
func (c *cancelOnLoad) Done() {}

// TestRunLoadKilledAndResumed kills a run in the middle of its load (the context is cancelled
// after the first batch of 5 rows), runs the job again, and requires the graph of a full load.
func TestRunLoadKilledAndResumed(t *testing.T) {
	uri := emptyNeo4j(t)
	j := demoJob(t, "sink.kind=neo4j", "sink.uri="+uri, "sink.batch_size=5")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clock := graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	_, err := Run(ctx, j, RunOptions{Clock: clock, Progress: &cancelOnLoad{cancel: cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: err = %v, want context.Canceled", err)
	}
	partial := graphSnapshot(t, uri)
	rep := run(t, j)
	if st := rep.Stages[LoadStage]; st.Units == 0 || rep.Load == nil {
		t.Fatalf("the second run loaded nothing: %+v", st)
	}
	resumed := graphSnapshot(t, uri)
	if resumed == partial {
		t.Errorf("the killed run had written everything already")
	}
	neo4jQuery(t, uri, "MATCH (n) DETACH DELETE n")
	j.Sink.Reload = true
	run(t, j)
	if full := graphSnapshot(t, uri); full != resumed {
		t.Errorf("killed and resumed load differs from a full load")
	}
}
