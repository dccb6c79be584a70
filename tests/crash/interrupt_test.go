package crash

import (
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// testInterrupts sends SIGINT in the middle of several stages, one run each. Every interrupted
// run must drain (exit 130, every answer it received committed, no later stage started), and
// the run after the last one must finish with the uninterrupted run's export and without a
// single repeated request.
func testInterrupts(t *testing.T, f *fixture, ref reference) {
	s := f.startStub(t)
	job, checkpoint := f.job(t, "sigint", s)
	f.clearGraph(t)
	seen := 0
	for _, stage := range []string{"ingest", "extract", "temporal", "community", "load"} {
		p, err := harness.Start(t.Context(), f.bin, []string{"run", job}, harness.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !p.WaitStage(t.Context(), stage) {
			res, _ := p.Wait()
			t.Fatalf("the run ended before %s: exit %d\n%s", stage, res.Code, tail(res.Stderr))
		}
		if stage == "load" {
			// The last stage, aimed by progress: a late signal would find the run done.
			if !f.waitLoad(t, p, len(ref.graph)/10) {
				res, _ := p.Wait()
				t.Fatalf("the load ended before a tenth of the graph was written: exit %d\n%s", res.Code, tail(res.Stderr))
			}
		} else {
			time.Sleep(ref.spans[stage] * 3 / 10)
		}
		at := p.Stage()
		if err := p.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		res, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if res.Code != 130 || !strings.Contains(res.Stderr, "interrupted") {
			t.Fatalf("SIGINT in %s: exit %d, want 130 and a message\n%s", at, res.Code, tail(res.Stderr))
		}
		if !s.WaitIdle(10 * time.Second) {
			t.Fatal("the stub is still serving requests after the run exited")
		}
		answers := s.Answers()
		have := committed(t, checkpoint, answers[seen:])
		for _, a := range answers[seen:] {
			for _, k := range a.Keys {
				if !have[k] {
					t.Errorf("SIGINT in %s: a %s answer the run received is not in the checkpoint", at, a.Task)
				}
			}
		}
		seen = len(answers)
		units := finishedUnits(t, checkpoint)
		if i := slices.Index(ref.order, at); i >= 0 && i+1 < len(ref.order) {
			if next := ref.order[i+1]; units[next] > 0 {
				t.Errorf("SIGINT in %s: units %v; a drained run starts no later stage", at, units)
			}
		}
		t.Logf("SIGINT in %s after %s: exit 130, units %v", at, res.Elapsed.Round(time.Millisecond), units)
	}
	f.run(t, job)
	if err := harness.CompareDirs(ref.export, f.export(t, job, "sigint")); err != nil {
		t.Fatalf("after the interrupts: %v", err)
	}
	if d := harness.DiffLines(ref.graph, f.graph(t)); d != "" {
		t.Fatalf("after the interrupts the graph in Neo4j differs from the uninterrupted load: %s", d)
	}
	if st := stats(t, s); st.Repeated != ref.repeated {
		t.Errorf("stub repeated %d answers, the uninterrupted run %d: a drained run must not lose any", st.Repeated, ref.repeated)
	}
}
