package crash

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// concurrency is the job's llm.concurrency: the most requests (and units) in flight.
const concurrency = 4

// delay slows the stub down so that every stage lasts long enough to be hit: extraction (one
// call per episode) gets 1 ms, every other task 25 ms.
func delay(task string) time.Duration {
	if strings.HasPrefix(task, "extract") {
		return time.Millisecond
	}
	return 25 * time.Millisecond
}

// fixture is the built binary, the LoCoMo input of a test and the Neo4j server its jobs load.
type fixture struct {
	bin, dir, input string
	full            bool
	neo4j           string // Bolt URI; the test holds the server to itself
}

// newFixture builds backfill, writes the LoCoMo conversations of the test to a temp dir and
// takes the test Neo4j server for the duration of t.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src := testenv.LoCoMo(t, root)
	f := &fixture{dir: t.TempDir(), full: os.Getenv("BACKFILL_CRASH_FULL") == "1", neo4j: testenv.Neo4jExclusive(t)}
	if f.bin, err = harness.Build(t.Context(), root, f.dir); err != nil {
		t.Fatal(err)
	}
	f.input = filepath.Join(f.dir, "locomo.json")
	n := 3
	if f.full {
		n = 0
	}
	if err := harness.FilterLoCoMo(src, f.input, n); err != nil {
		t.Fatal(err)
	}
	return f
}

// startStub starts a fresh `backfill llm-stub` subprocess (no faults) behind a Recorder, so
// its counters belong to one scenario. The stub runs in its own (non-race) process, which keeps
// the suite fast under -race.
func (f *fixture) startStub(t *testing.T) *harness.Stub {
	t.Helper()
	upstream := harness.LLMStub(t, f.bin)
	s, err := harness.StartProxy(upstream, delay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// stats reads the stub's counters.
func stats(t *testing.T, s *harness.Stub) stub.Stats {
	t.Helper()
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sinkBatch is the job's sink.batch_size: small, so the load runs many transactions and
// lasts long enough to be hit.
const sinkBatch = 25

// job writes a job named name with its own checkpoint that talks to s and loads the fixture's
// Neo4j; it returns the job file and the checkpoint path.
func (f *fixture) job(t *testing.T, name string, s *harness.Stub) (job, checkpoint string) {
	t.Helper()
	checkpoint = filepath.Join(f.dir, name+".db")
	src := fmt.Sprintf("path: %s\n    format: locomo", f.input)
	job = filepath.Join(f.dir, name+".yaml")
	yaml := harness.StubJobYAML(name, checkpoint, src, s.URL, concurrency) +
		fmt.Sprintf("sink:\n  kind: neo4j\n  uri: %s\n  batch_size: %d\n", f.neo4j, sinkBatch)
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return job, checkpoint
}

// run runs the job to completion and requires exit 0.
func (f *fixture) run(t *testing.T, job string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), f.bin, []string{"run", job}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("backfill run %s: exit %d\n%s", job, res.Code, tail(res.Stderr))
	}
	return res
}

// export writes the job's Parquet export to a new directory and returns it.
func (f *fixture) export(t *testing.T, job, name string) string {
	t.Helper()
	out := filepath.Join(f.dir, name+"-export")
	res, err := harness.Run(t.Context(), f.bin, []string{"export", job, "--format", "parquet", "--out", out}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("backfill export: exit %d\n%s", res.Code, tail(res.Stderr))
	}
	return out
}

// stageSpans returns how long each stage ran, from a run's events, in stage order.
func stageSpans(evs []harness.Event) (order []string, spans map[string]time.Duration) {
	spans = map[string]time.Duration{}
	began := map[string]time.Duration{}
	for _, ev := range evs {
		if !ev.Finished {
			began[ev.Stage] = ev.At
			order = append(order, ev.Stage)
		} else {
			spans[ev.Stage] = ev.At - began[ev.Stage]
		}
	}
	return order, spans
}

// committed returns the keys (of answers) that the checkpoint's LLM cache holds.
func committed(t *testing.T, checkpoint string, answers []harness.Answer) map[string]bool {
	t.Helper()
	ctx := context.Background()
	out := map[string]bool{}
	if !storeExists(t, checkpoint) {
		return out // every answer counts as lost
	}
	s, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, a := range answers {
		for _, k := range a.Keys {
			if _, ok, err := s.Get(ctx, k); err != nil {
				t.Fatal(err)
			} else if ok {
				out[k] = true
			}
		}
	}
	return out
}

// storeExists reports whether a run left its checkpoint store behind: a run stopped before it
// committed anything (a signal during the atomic ingest) removes the empty store it created.
func storeExists(t *testing.T, checkpoint string) bool {
	t.Helper()
	_, err := os.Stat(checkpoint)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// finishedUnits counts the finished units per stage of a checkpoint.
func finishedUnits(t *testing.T, checkpoint string) map[string]int {
	t.Helper()
	ctx := context.Background()
	if !storeExists(t, checkpoint) {
		return map[string]int{}
	}
	s, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cs, err := s.StageCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, c := range cs {
		out[c.Stage] = c.Units
	}
	return out
}

// clearGraph empties the fixture's Neo4j database.
func (f *fixture) clearGraph(t *testing.T) {
	t.Helper()
	if err := harness.ClearNeo4j(t.Context(), f.neo4j); err != nil {
		t.Fatal(err)
	}
}

// graph renders the fixture's Neo4j database as sorted lines.
func (f *fixture) graph(t *testing.T) []string { return harness.Graph(t, f.neo4j) }

// rowsQuery counts the nodes and relationships of a database.
const rowsQuery = "CALL { MATCH (n) RETURN count(n) AS c UNION ALL MATCH ()-[r]->() RETURN count(r) AS c } RETURN sum(c) AS n"

// waitLoad waits until p has started its load stage and the database holds at least want
// nodes and relationships, so that a signal lands while the load writes. Load times vary more
// than the other stages' (a fresh schema, Neo4j's own checkpoints and garbage collection), so
// the load is aimed at by progress, not by time. It returns false when p ended first.
func (f *fixture) waitLoad(t *testing.T, p *harness.Proc, want int) bool {
	t.Helper()
	ok, err := harness.WaitNeo4jCount(t.Context(), p, f.neo4j, "load", rowsQuery, int64(want))
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// reference is an uninterrupted run: its export, the graph it loaded, stage spans and the
// stub's repeat count.
type reference struct {
	export   string
	graph    []string
	order    []string
	spans    map[string]time.Duration
	repeated int64
	answers  int
	units    map[string]int // finished units per stage
}

// runReference runs the job once without interruption and checks that every answer the stub
// gave is in the checkpoint's cache under the key the Recorder computed, so the "committed
// before a kill" check of the other scenarios is not vacuous.
func (f *fixture) runReference(t *testing.T) reference {
	t.Helper()
	s := f.startStub(t)
	job, checkpoint := f.job(t, "reference", s)
	f.clearGraph(t)
	res := f.run(t, job)
	g := f.graph(t)
	if len(g) == 0 {
		t.Fatal("the reference run loaded nothing into Neo4j")
	}
	answers := s.Answers()
	have := committed(t, checkpoint, answers)
	keys := 0
	for _, a := range answers {
		for _, k := range a.Keys {
			keys++
			if !have[k] {
				t.Fatalf("an answer to %s (key %s) is not in the reference checkpoint's cache: the Recorder's keys do not match the client's", a.Task, k)
			}
		}
	}
	if keys == 0 {
		t.Fatal("the stub answered nothing")
	}
	order, spans := stageSpans(res.Events)
	if len(order) < 8 {
		t.Fatalf("stages logged: %v", order)
	}
	st := stats(t, s)
	t.Logf("reference: %s, %d answers, repeated %d, stages %v; %d nodes and relationships loaded", res.Elapsed.Round(time.Millisecond),
		len(answers), st.Repeated, fmtSpans(order, spans), len(g))
	return reference{export: f.export(t, job, "reference"), graph: g, order: order, spans: spans, repeated: st.Repeated,
		answers: len(answers), units: finishedUnits(t, checkpoint)}
}

func fmtSpans(order []string, spans map[string]time.Duration) string {
	var b strings.Builder
	for _, s := range order {
		fmt.Fprintf(&b, "%s=%s ", s, spans[s].Round(time.Millisecond))
	}
	return strings.TrimSpace(b.String())
}

// countBy renders a histogram sorted by key.
func countBy(xs []string) string {
	n := map[string]int{}
	for _, x := range xs {
		n[x]++
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s:%d ", k, n[k])
	}
	return strings.TrimSpace(b.String())
}

// tail returns the last lines of a log.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
