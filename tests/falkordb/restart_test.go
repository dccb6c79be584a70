package falkordb

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestFalkorDBRestart loads a reference graph into a private FalkorDB, then loads it again
// (sink.reload) into the emptied server and SIGKILLs the server once a third of the nodes are
// in, restarting it about a second later on the same data: the run must ride through with its
// retries and leave exactly the reference graph.
func TestFalkorDBRestart(t *testing.T) {
	s := startServer(t)
	bin, dir, job := setup(t, 3)
	ctx := t.Context()
	db, err := harness.DialFalkorDB(s.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sink := []string{"--set", "sink.kind=falkordb", "--set", "sink.uri=" + s.URI, "--set", "sink.batch_size=5"}

	res := run(t, bin, job, filepath.Join(dir, "reference.json"), sink...)
	ref := readReport(t, filepath.Join(dir, "reference.json"))
	if ref.Load == nil || ref.Load.Retries != 0 {
		t.Fatalf("reference load: %+v", ref.Load)
	}
	want, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("reference: %s, load %+v, %d snapshot lines", res.Elapsed.Round(time.Millisecond), *ref.Load, len(want))
	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}

	rep := filepath.Join(dir, "restart.json")
	p, err := harness.Start(ctx, bin, append([]string{"run", job, "--report", rep, "--set", "sink.reload=true"}, sink...), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := int64(ref.Load.Nodes / 3)
	into := waitNodes(t, p, db, at)
	killed := time.Now()
	s.kill()
	time.Sleep(time.Second)
	if err := s.start(ctx); err != nil {
		t.Fatal(err)
	}
	down := time.Since(killed)
	out, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("falkordb killed %s into the load (>= %d nodes written), down %s; run exit %d after %s",
		into.Round(time.Millisecond), at, down.Round(time.Millisecond), out.Code, out.Elapsed.Round(time.Millisecond))
	if out.Code != 0 {
		t.Fatalf("the run did not survive the restart: exit %d\n%s", out.Code, harness.Tail(out.Stderr, 15))
	}
	got := readReport(t, rep)
	if got.Load == nil || got.Load.Retries == 0 {
		t.Errorf("the report counts no load retries: %+v", got.Load)
	} else {
		t.Logf("load after the restart: %+v", *got.Load)
	}
	after, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := harness.DiffLines(want, after); d != "" {
		t.Errorf("the graph differs from the reference: %s", d)
	}
}

// waitNodes waits, once p has started its load stage, until the server's graphs hold at least
// want nodes, and returns how long after the load started that was; it fails t when the load
// finishes or p ends first.
func waitNodes(t *testing.T, p *harness.Proc, db *harness.FalkorDB, want int64) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	if !p.WaitStage(ctx, "load") {
		res, _ := p.Wait()
		t.Fatalf("the run ended (exit %d) before its load stage\n%s", res.Code, harness.Tail(res.Stderr, 20))
	}
	start := time.Now()
	for {
		n, err := nodes(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		if n >= want {
			return time.Since(start)
		}
		tick, stop := context.WithTimeout(ctx, 5*time.Millisecond)
		_, finished := p.WaitLine(tick, `msg="stage finished" stage=load`)
		ended := !finished && tick.Err() == nil
		stop()
		if finished || ended || ctx.Err() != nil {
			res, _ := p.Wait()
			t.Fatalf("the load finished or the run ended (exit %d) before the graphs held %d nodes\n%s", res.Code, want, harness.Tail(res.Stderr, 20))
		}
	}
}

// nodes counts the nodes of every graph.
func nodes(ctx context.Context, db *harness.FalkorDB) (int64, error) {
	graphs, err := db.Graphs(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, g := range graphs {
		c, err := db.Int(ctx, g, "MATCH (n) RETURN count(n)")
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}
