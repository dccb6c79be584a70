package runner

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
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
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
	rep := mustRun(t, j)
	if rep.Load == nil || rep.Stages[stages.Load].Units == 0 || rep.Stages[stages.Load].Skipped != 0 {
		t.Fatalf("first run did not load every group: %+v %+v", rep.Stages[stages.Load], rep.Load)
	}
	groups := rep.Stages[stages.Load].Units
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
	again := mustRun(t, j)
	if st := again.Stages[stages.Load]; st.Units != 0 || st.Skipped != groups || again.Load != nil {
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
	j.Sources = append(j.Sources, ingest.Source{Spec: loaders.Spec{Path: extra, Format: "jsonl", Source: "message", Description: "chat history",
		Mapping: loaders.Mapping{Group: "group_id", ReferenceTime: "reference_time", Speaker: "speaker", Body: "content"}}})
	third := mustRun(t, j)
	if st := third.Stages[stages.Load]; st.Units != 1 || st.Skipped != groups-1 {
		t.Errorf("after one new message: load %+v, want 1 unit and %d skipped", st, groups-1)
	}
	incremental := graphSnapshot(t, uri)
	if incremental == first {
		t.Errorf("the new message changed nothing in the graph")
	}
	// The incremental graph equals a full reload of the same store into an empty database.
	neo4jQuery(t, uri, "MATCH (n) DETACH DELETE n")
	j.Sink.Reload = true
	full := mustRun(t, j)
	if st := full.Stages[stages.Load]; st.Units != groups {
		t.Errorf("reload wrote %d groups, want %d", st.Units, groups)
	}
	if got := graphSnapshot(t, uri); got != incremental {
		t.Errorf("incremental load differs from a full reload")
	}
}

// cancelOnLoad cancels the run once the load stage has written its first batch.
type cancelOnLoad struct {
	cancel  context.CancelFunc
	loading bool
}

func (c *cancelOnLoad) Start(stage string, _ int) { c.loading = stage == stages.Load }

func (c *cancelOnLoad) Add(int) {
	if c.loading {
		c.cancel()
	}
}

func (c *cancelOnLoad) Done() {}

func (c *cancelOnLoad) Skip(int) {}

func (c *cancelOnLoad) Ahead([]stages.Work) {}

// TestRunLoadKilledAndResumed kills a run in the middle of its load (the context is cancelled
// after the first batch of 5 rows), runs the job again, and requires the graph of a full load.
func TestRunLoadKilledAndResumed(t *testing.T) {
	uri := emptyNeo4j(t)
	j := demoJob(t, "sink.kind=neo4j", "sink.uri="+uri, "sink.batch_size=5")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	clock := graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	_, err := Run(ctx, j, Options{Clock: clock, Progress: &cancelOnLoad{cancel: cancel}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: err = %v, want context.Canceled", err)
	}
	partial := graphSnapshot(t, uri)
	rep := mustRun(t, j)
	if st := rep.Stages[stages.Load]; st.Units == 0 || rep.Load == nil {
		t.Fatalf("the second run loaded nothing: %+v", st)
	}
	resumed := graphSnapshot(t, uri)
	if resumed == partial {
		t.Errorf("the killed run had written everything already")
	}
	neo4jQuery(t, uri, "MATCH (n) DETACH DELETE n")
	j.Sink.Reload = true
	mustRun(t, j)
	if full := graphSnapshot(t, uri); full != resumed {
		t.Errorf("killed and resumed load differs from a full load")
	}
}
