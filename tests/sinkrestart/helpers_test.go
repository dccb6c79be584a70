package sinkrestart

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// conversations is how many LoCoMo conversations the job reads: one (419 episodes, about 1,200
// rows in 51 transactions of 25) keeps the package near its time budget, where three Neo4j
// starts already take most of it.
const conversations = 1

// retryLine is what the loader logs before it tries a transaction again.
const retryLine = "retrying after a transient error"

// fixture is the built binary, the input and the private Neo4j of the test.
type fixture struct {
	bin, dir, input string
	neo             *server
}

// newFixture builds backfill, writes the input and starts Neo4j.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src := testenv.LoCoMo(t, root)
	launcher(t, root) // skip or fail before the build when Neo4j cannot run
	f := &fixture{dir: t.TempDir()}
	f.input = filepath.Join(f.dir, "locomo.json")
	if err := harness.FilterLoCoMo(src, f.input, conversations); err != nil {
		t.Fatal(err)
	}
	if f.bin, err = harness.Build(t.Context(), root, f.dir); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	f.neo = startServer(t, root)
	t.Logf("neo4j ready on %s in %s", f.neo.URI, time.Since(began).Round(time.Millisecond))
	return f
}

// job writes a job with its own checkpoint that loads the input into the test's Neo4j; sink
// holds extra sink keys (indented by two spaces). It returns the job file.
func (f *fixture) job(t *testing.T, name, sink string) string {
	t.Helper()
	y := fmt.Sprintf(`name: sinkrestart
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: locomo
llm:
  provider: offline
embedder:
  provider: offline
sink:
  kind: neo4j
  uri: %s
  batch_size: 25
%s`, filepath.Join(f.dir, name+".db"), f.input, f.neo.URI, sink)
	p := filepath.Join(f.dir, name+".yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// reportPath is where a run of job writes its --report.
func reportPath(job string, run int) string {
	return strings.TrimSuffix(job, ".yaml") + "-" + strconv.Itoa(run) + ".report.json"
}

// args are the arguments of run number n of job.
func args(job string, n int) []string { return []string{"run", job, "--report", reportPath(job, n)} }

// report is the part of the run report (report.Report) the test reads.
type report struct {
	Stages map[string]struct {
		Units   int `json:"units"`
		Skipped int `json:"skipped"`
	} `json:"stages"`
	Load *struct {
		Groups  int `json:"groups"`
		Nodes   int `json:"nodes"`
		Edges   int `json:"edges"`
		Batches int `json:"batches"`
		Retries int `json:"retries"`
	} `json:"load"`
}

// readReport reads the report of run n of job.
func readReport(t *testing.T, job string, n int) report {
	t.Helper()
	b, err := os.ReadFile(reportPath(job, n))
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("parsing %s: %v", reportPath(job, n), err)
	}
	return r
}

// snapshot renders the graph in the test's Neo4j.
func (f *fixture) snapshot(t *testing.T) []string { return harness.Graph(t, f.neo.URI) }

// clear empties the test's Neo4j (indexes stay).
func (f *fixture) clear(t *testing.T) {
	t.Helper()
	if err := harness.ClearNeo4j(t.Context(), f.neo.URI); err != nil {
		t.Fatal(err)
	}
}

// waitNodes waits, once p has started its load stage, until the database holds at least want
// nodes, so that a fault lands while the load is writing. It returns how long after the load
// started that was, or fails t when the load finishes or p ends first.
func (f *fixture) waitNodes(t *testing.T, p *harness.Proc, want int64) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if !p.WaitStage(ctx, "load") {
		res, _ := p.Wait()
		t.Fatalf("the run ended (exit %d) before its load stage\n%s", res.Code, harness.Tail(res.Stderr, 20))
	}
	loadStart := time.Now()
	ok, err := harness.WaitNeo4jCount(ctx, p, f.neo.URI, "load", "MATCH (n) RETURN count(n) AS c", want)
	switch {
	case err != nil:
		t.Fatal(err)
	case ok:
		return time.Since(loadStart)
	case ctx.Err() != nil:
		t.Fatalf("timed out waiting for the load to write %d nodes", want)
	}
	res, _ := p.Wait()
	t.Fatalf("the load finished or the run ended (exit %d) before the fault: the database never held %d nodes\n%s",
		res.Code, want, harness.Tail(res.Stderr, 20))
	return 0
}

// lastLine returns the last non-empty line of a log.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

var attemptRE = regexp.MustCompile(`(?m)^time=(\S+) .*` + retryLine + `" attempt=(\d+)`)

// retries counts the retry lines of a log and returns the highest attempt number they name and
// the time from the first retry line to the last.
func retries(stderr string) (n, maxAttempt int, span time.Duration) {
	var first, last time.Time
	for _, m := range attemptRE.FindAllStringSubmatch(stderr, -1) {
		n++
		a, _ := strconv.Atoi(m[2])
		maxAttempt = max(maxAttempt, a)
		if at, err := time.Parse(time.RFC3339Nano, m[1]); err == nil {
			if first.IsZero() {
				first = at
			}
			last = at
		}
	}
	return n, maxAttempt, last.Sub(first)
}
