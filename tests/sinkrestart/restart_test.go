package sinkrestart

import (
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestNeo4jRestart loads a reference graph, then crashes Neo4j in the middle of two more loads:
// one that must retry through the restart, one that must fail cleanly and resume. One server
// process serves the reference and is restarted only for the faults.
func TestNeo4jRestart(t *testing.T) {
	f := newFixture(t)
	want := reference(t, f)
	nodes := 0
	for _, l := range want {
		if strings.HasPrefix(l, "node ") {
			nodes++
		}
	}
	// The fault lands once a third of the nodes are in: the load is well under way, not done.
	at := int64(nodes / 3)
	t.Run("retries through", func(t *testing.T) { retriesThrough(t, f, want, at) })
	t.Run("fails cleanly and resumes", func(t *testing.T) { failsAndResumes(t, f, want, at) })
}

// reference runs the job once without faults and returns the graph it loaded, then empties
// the database.
func reference(t *testing.T, f *fixture) []string {
	t.Helper()
	job := f.job(t, "reference", "")
	res, err := harness.Run(t.Context(), f.bin, args(job, 1), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("reference run: exit %d\n%s", res.Code, harness.Tail(res.Stderr, 20))
	}
	if n, _, _ := retries(res.Stderr); n > 0 {
		t.Fatalf("the reference run retried %d transactions without a fault\n%s", n, harness.Tail(res.Stderr, 20))
	}
	want := f.snapshot(t)
	rep := readReport(t, job, 1)
	if len(want) == 0 || rep.Load == nil {
		t.Fatalf("the reference run loaded nothing (report load %+v)", rep.Load)
	}
	t.Logf("reference: %s, load %+v, %d snapshot lines", res.Elapsed.Round(time.Millisecond), *rep.Load, len(want))
	f.clear(t)
	return want
}

// retriesThrough SIGKILLs Neo4j mid-load and restarts it about a second later: the run, with
// the default retry settings, must ride through and load exactly the reference graph.
func retriesThrough(t *testing.T, f *fixture, want []string, at int64) {
	job := f.job(t, "retry", "")
	began := time.Now()
	p, err := harness.Start(t.Context(), f.bin, args(job, 1), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	into := f.waitNodes(t, p, at)
	killed := time.Now()
	f.neo.kill()
	time.Sleep(time.Second)
	if err := f.neo.start(t.Context()); err != nil {
		t.Fatal(err)
	}
	down := time.Since(killed)
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	n, maxAttempt, span := retries(res.Stderr)
	t.Logf("neo4j killed %s into the load (>= %d nodes written), down %s; run exit %d after %s; %d retries logged over %s, highest attempt %d of %d",
		into.Round(time.Millisecond), at, down.Round(time.Millisecond), res.Code, res.Elapsed.Round(time.Millisecond), n, span.Round(time.Millisecond), maxAttempt, graphdb.DefaultMaxAttempts)
	for _, ev := range res.Events {
		if ev.Stage == "load" && ev.Finished && ev.At < killed.Sub(began) {
			t.Fatalf("the load finished %s after the start, before the kill at %s", ev.At, killed.Sub(began))
		}
	}
	if res.Code != 0 {
		t.Fatalf("the run did not survive the restart: exit %d (retries %d, highest attempt %d, neo4j down %s)\n%s",
			res.Code, n, maxAttempt, down.Round(time.Millisecond), harness.Tail(res.Stderr, 15))
	}
	if n == 0 {
		t.Errorf("the run's log has no %q line: the kill did not hit a transaction\n%s", retryLine, harness.Tail(res.Stderr, 15))
	}
	if rep := readReport(t, job, 1); rep.Load == nil || rep.Load.Retries == 0 {
		t.Errorf("the report counts no load retries: %+v", rep.Load)
	} else {
		t.Logf("load after the restart: %+v", *rep.Load)
	}
	if d := harness.DiffLines(want, f.snapshot(t)); d != "" {
		t.Errorf("the graph differs from the reference: %s", d)
	}
}

// failsAndResumes SIGKILLs Neo4j mid-load and keeps it down: with two attempts per transaction
// the run must fail with one clean line; after a restart the same job must resume and load
// exactly the reference graph.
func failsAndResumes(t *testing.T, f *fixture, want []string, at int64) {
	f.clear(t)
	job := f.job(t, "resume", "  max_attempts: 2\n  retry_seconds: 0.1\n")
	p, err := harness.Start(t.Context(), f.bin, args(job, 1), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	into := f.waitNodes(t, p, at)
	killed := time.Now()
	f.neo.kill()
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	n, maxAttempt, _ := retries(res.Stderr)
	line := lastLine(res.Stderr)
	t.Logf("neo4j killed %s into the load; run exit %d %s after the kill; %d retries logged, highest attempt %d; error: %s",
		into.Round(time.Millisecond), res.Code, time.Since(killed).Round(time.Millisecond), n, maxAttempt, line)
	if res.Code != 1 {
		t.Fatalf("exit %d, want 1\n%s", res.Code, harness.Tail(res.Stderr, 15))
	}
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "goroutine ") {
		t.Errorf("the failed run panicked or dumped goroutines:\n%s", harness.Tail(res.Stderr, 30))
	}
	lower := strings.ToLower(line)
	if !strings.HasPrefix(line, "backfill: ") || !strings.Contains(lower, "neo4j") || !strings.Contains(lower, "connect") {
		t.Errorf("last line %q is not a `backfill: ` error naming neo4j and the connection", line)
	}
	if c := strings.Count(res.Stderr, "\nbackfill: ") + boolInt(strings.HasPrefix(res.Stderr, "backfill: ")); c != 1 {
		t.Errorf("%d `backfill: ` error lines, want 1\n%s", c, harness.Tail(res.Stderr, 15))
	}
	if n == 0 || maxAttempt != 1 {
		t.Errorf("%d retries up to attempt %d, want retries of attempt 1 only (sink.max_attempts: 2)", n, maxAttempt)
	}

	began := time.Now()
	if err := f.neo.start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Logf("neo4j down %s (restart took %s)", time.Since(killed).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	res, err = harness.Run(t.Context(), f.bin, args(job, 2), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", res.Code, harness.Tail(res.Stderr, 15))
	}
	rep := readReport(t, job, 2)
	load, extract := rep.Stages["load"], rep.Stages["extract"]
	t.Logf("resumed run: exit 0 after %s; load units %d, extract units %d skipped %d; load %+v",
		res.Elapsed.Round(time.Millisecond), load.Units, extract.Units, extract.Skipped, rep.Load)
	if load.Units == 0 || rep.Load == nil || rep.Load.Groups == 0 {
		t.Errorf("the resumed run loaded nothing: load stage %+v, load %+v", load, rep.Load)
	}
	if d := harness.DiffLines(want, f.snapshot(t)); d != "" {
		t.Errorf("the graph differs from the reference: %s", d)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
