package jobs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks/parquet"
)

// demoJob loads the bundled demo job with its paths made absolute and its store in a temp dir.
func demoJob(t *testing.T, sets ...string) *Job {
	t.Helper()
	return exampleJob(t, "demo", sets...)
}

// exampleJob loads jobs/examples/NAME.yaml with its paths made absolute and its store in a
// temp dir.
func exampleJob(t *testing.T, name string, sets ...string) *Job {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BACKFILL_CHECKPOINT": filepath.Join(t.TempDir(), name+".db")}
	j, err := Load(filepath.Join(root, "jobs/examples", name+".yaml"), sets, func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range j.Sources {
		j.Sources[i].Path = filepath.Join(root, j.Sources[i].Path)
	}
	return j
}

func run(t *testing.T, j *Job) *Report {
	t.Helper()
	rep, err := Run(context.Background(), j, RunOptions{Clock: graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func export(t *testing.T, j *Job) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	dir := t.TempDir()
	if err := parquet.Export(ctx, GraphSource(j, store), dir); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

func TestDemoEndToEndAndRerun(t *testing.T) {
	j := demoJob(t)
	rep := run(t, j)
	if rep.Episodes == 0 || rep.Entities == 0 || rep.Facts == 0 || rep.FactsInvalidated < 1 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.LLM.Calls == 0 {
		t.Fatalf("first run made no LLM calls")
	}
	first := export(t, j)
	again := run(t, j)
	if again.LLM.Calls != 0 {
		t.Errorf("second run made %d LLM calls, want 0", again.LLM.Calls)
	}
	for _, s := range []string{"extract", "resolve", "temporal", "summarize", "embed", "community"} {
		if st := again.Stages[s]; st.Units != 0 {
			t.Errorf("second run re-ran %d %s units", st.Units, s)
		}
	}
	second := export(t, j)
	if len(first) != 7 {
		t.Fatalf("exported %d files, want 7", len(first))
	}
	for name, b := range first {
		if !bytes.Equal(b, second[name]) {
			t.Errorf("%s differs between runs", name)
		}
	}
}

func TestFreshRunsGiveIdenticalExports(t *testing.T) {
	a, b := demoJob(t), demoJob(t)
	run(t, a)
	run(t, b)
	ea, eb := export(t, a), export(t, b)
	for name, x := range ea {
		if !bytes.Equal(x, eb[name]) {
			t.Errorf("%s differs between two fresh runs", name)
		}
	}
}

// The demo's employer change: Alice's Kakao fact is closed when Naver starts, Naver stays open.
func TestDemoEmployerChange(t *testing.T) {
	j := demoJob(t)
	run(t, j)
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	names := map[string]string{}
	if err := store.EachEntity(ctx, "alice", func(e graph.Entity) error { names[e.UUID] = e.Name; return nil }); err != nil {
		t.Fatal(err)
	}
	var kakaoClosed, naverOpen bool
	if err := store.EachFact(ctx, "alice", func(f graph.Fact) error {
		if names[f.SourceUUID] != "Alice" || f.Name != "WORKS_AT" || f.ValidAt == nil {
			return nil
		}
		switch names[f.TargetUUID] {
		case "Kakao":
			kakaoClosed = f.InvalidAt != nil && f.ExpiredAt != nil && f.InvalidAt.Format("2006-01-02") == "2024-03-02"
		case "Naver":
			naverOpen = f.InvalidAt == nil && f.ExpiredAt == nil
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !kakaoClosed || !naverOpen {
		t.Fatalf("Kakao closed on 2024-03-02: %v; Naver open: %v", kakaoClosed, naverOpen)
	}
}
