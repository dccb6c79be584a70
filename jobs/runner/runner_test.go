package runner

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

func TestDemoEndToEndAndRerun(t *testing.T) {
	j := demoJob(t)
	rep := mustRun(t, j)
	if rep.Episodes == 0 || rep.Entities == 0 || rep.Facts == 0 || rep.FactsInvalidated < 1 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.LLM.Calls == 0 {
		t.Fatalf("first run made no LLM calls")
	}
	first := export(t, j)
	again := mustRun(t, j)
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
	mustRun(t, a)
	mustRun(t, b)
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
	mustRun(t, j)
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

// starts records the stages in the order they start.
type starts struct {
	stages.NoProgress
	mu    sync.Mutex
	names []string
}

func (s *starts) Start(stage string, _ int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names = append(s.names, stage)
}

// TestRunFollowsTheStepTable: a run starts its stages in the order of the step table, each once
// (load only with a graph sink), and reports each of them.
func TestRunFollowsTheStepTable(t *testing.T) {
	j := demoJob(t)
	var got starts
	rep, err := Run(context.Background(), j, Options{Clock: testClock, Progress: &got})
	if err != nil {
		t.Fatal(err)
	}
	want := stages.StepNames()[:len(stages.Steps)-1]
	if !slices.Equal(got.names, want) {
		t.Fatalf("stages started %v, want %v", got.names, want)
	}
	for _, s := range want {
		if _, ok := rep.Stages[s]; !ok {
			t.Errorf("the report has no stage %s", s)
		}
	}
}
