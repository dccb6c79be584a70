package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
)

// batchSets put the chat model and the embedder of a stub job in batch mode, polling fast.
var batchSets = []string{"llm.mode=batch", "embedder.mode=batch", "llm.batch.poll_seconds=0.02"}

// TestBatchRunEqualsOnline: the demo in batch mode gives the online run's graph; the run waits
// for its batches stage after stage (waves), costs half, and records every batch; an online
// run over its store afterwards asks nothing.
func TestBatchRunEqualsOnline(t *testing.T) {
	s := stub.New(stub.Options{BatchDelay: 50 * time.Millisecond})
	base := startStub(t, s)
	online := stubJob(t, base)
	onRep := mustRun(t, online)
	batch := stubJob(t, base, batchSets...)
	rep := mustRun(t, batch)
	sameExport(t, export(t, online), export(t, batch))
	if b := rep.Batch; b == nil || b.Batches == 0 || b.Requests != rep.LLM.Calls || b.Resubmitted != 0 || b.Pending != 0 || b.PendingStage != "" {
		t.Fatalf("batch report %+v, llm %+v", rep.Batch, rep.LLM)
	}
	// The same requests at half the price (concurrent online units may send a duplicate or two).
	if r := rep.LLM.CostUSD / onRep.LLM.CostUSD; r < 0.49 || r > 0.51 || math.Abs(float64(rep.LLM.PromptTokens-onRep.LLM.PromptTokens)) > 0.01*float64(onRep.LLM.PromptTokens) {
		t.Fatalf("batch llm %+v, online %+v: want the same requests at half the cost", rep.LLM, onRep.LLM)
	}
	if w := rep.Stages["extract"].Waves; w != 2 {
		t.Errorf("extract took %d waves, want 2 (the default mode's one call per episode, then the commit)", w)
	}
	if st := s.Stats(); st.BatchResubmitted != 0 || int(st.BatchRequests) != rep.Batch.Requests {
		t.Fatalf("stub %+v", st)
	}
	// An online run over the batch run's store finds every answer in the cache.
	again := stubJob(t, base)
	again.Checkpoint = batch.Checkpoint
	if r := mustRun(t, again); r.LLM.Calls != 0 {
		t.Fatalf("an online run after the batch run made %d calls", r.LLM.Calls)
	}
}

// TestBatchRunNoWait: with NoWait a run submits the first wave and returns at once, without an
// error, naming the stage and the pending batches; each later run continues, and the last one
// ends with the graph of a run that waited. No request is submitted twice.
func TestBatchRunNoWait(t *testing.T) {
	waited := stubJob(t, startStub(t, stub.New(stub.Options{})), batchSets...)
	mustRun(t, waited)
	s := stub.New(stub.Options{BatchDelay: 150 * time.Millisecond})
	j := stubJob(t, startStub(t, s), batchSets...)
	ctx := context.Background()
	opts := Options{Clock: graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)), NoWait: true}
	var rep *report.Report
	var err error
	runs, stages := 0, []string{}
	for ; runs < 60; runs++ {
		if rep, err = Run(ctx, j, opts); err != nil {
			t.Fatal(err)
		}
		if !rep.Pending() {
			break
		}
		if rep.Batch.Pending == 0 && runs > 0 {
			t.Fatalf("run %d stopped pending at %s with no batch pending", runs, rep.Batch.PendingStage)
		}
		stages = append(stages, rep.Batch.PendingStage)
		time.Sleep(160 * time.Millisecond)
	}
	if rep.Pending() || rep.FailedUnits != 0 {
		t.Fatalf("after %d runs: %+v", runs, rep.Batch)
	}
	if stages[0] != "extract" || !strings.Contains(strings.Join(stages, ","), "community") {
		t.Errorf("runs stopped at %v", stages)
	}
	sameExport(t, export(t, waited), export(t, j))
	store, err := checkpoints.OpenReadOnly(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	recorded, err := store.Runs(ctx)
	if err != nil || len(recorded) != runs+1 || recorded[0].Outcome != OutcomePending || recorded[runs].Outcome != OutcomeOK {
		t.Fatalf("%d runs recorded (%v), want %d, pending then ok", len(recorded), err, runs+1)
	}
	if st := s.Stats(); st.BatchResubmitted != 0 {
		t.Fatalf("stub %+v: a request was submitted twice", st)
	}
	t.Logf("--no-wait: %d runs, stopped at %v", runs+1, stages)
}

// TestBatchRunBudget: in batch mode limits.max_cost_usd books each request's estimate when it is
// queued; the run stops cleanly at the cap with what it queued before submitted, and a run with
// a higher cap ends with the graph of an unlimited run without submitting anything twice.
func TestBatchRunBudget(t *testing.T) {
	full := stubJob(t, startStub(t, stub.New(stub.Options{})), batchSets...)
	mustRun(t, full)
	s := stub.New(stub.Options{})
	base := startStub(t, s)
	j := stubJob(t, base, append(batchSets, "limits.max_cost_usd=0.003")...)
	rep, err := runErr(t, j, nil, nil)
	if !errors.Is(err, pacing.ErrBudgetExceeded) || !rep.BudgetStopped || rep.Batch == nil || rep.Batch.Requests == 0 {
		t.Fatalf("run under a cap of $0.003: %v, report %+v", err, rep.Batch)
	}
	if est := rep.Batch.EstimatedUSD; est > 0.003 {
		t.Fatalf("submitted an estimated $%.4f under a cap of $0.003", est)
	}
	j.Limits.MaxCostUSD = 10
	if rep, err = runErr(t, j, nil, nil); err != nil || rep.Pending() {
		t.Fatalf("run with a higher cap: %v", err)
	}
	sameExport(t, export(t, full), export(t, j))
	if st := s.Stats(); st.BatchResubmitted != 0 {
		t.Fatalf("stub %+v", st)
	}
}
