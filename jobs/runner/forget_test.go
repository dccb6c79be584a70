package runner

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/pipeline"
)

// TestRunCompletesAnInterruptedForgetting: a forget killed right after its first transaction
// (the episodes gone, their groups pending) is completed by the next run, which ends with the
// graph of a forget that ran to its end.
func TestRunCompletesAnInterruptedForgetting(t *testing.T) {
	ctx := context.Background()
	clock := graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	whole := demoJob(t)
	mustRun(t, whole)
	killed := *whole
	killed.Checkpoint = whole.Checkpoint + ".copy"
	b, err := os.ReadFile(whole.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(killed.Checkpoint, b, 0o644); err != nil {
		t.Fatal(err)
	}
	alice := checkpoints.Selection{Speakers: []string{"Alice"}}

	f, err := forgetIn(ctx, whole, ForgetOptions{Selection: alice, Run: Options{Clock: clock}})
	if err != nil {
		t.Fatal(err)
	}
	if f.Deletion == nil || f.Report == nil || f.Report.Purged == nil || f.Report.Stages["ingest"].Units != 0 {
		t.Fatalf("forget: %+v; want a deletion and a run without ingest that purged", f)
	}

	store, err := checkpoints.Open(ctx, killed.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	eps, err := store.SelectEpisodes(ctx, alice)
	if err == nil {
		_, err = store.Forget(ctx, checkpoints.Deletion{Command: "test"}, eps)
	}
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	rep := mustRun(t, &killed)
	if rep.Purged == nil || rep.Purged.GroupsDone != 1 || rep.Forgotten != len(eps) {
		t.Errorf("the run after the killed forget: purged %+v, forgotten %d; want 1 group and %d rows skipped", rep.Purged, rep.Forgotten, len(eps))
	}
	want, got := export(t, whole), export(t, &killed)
	for name := range want {
		if !bytes.Equal(want[name], got[name]) {
			t.Errorf("%s differs between a forget run to its end and one completed by the next run", name)
		}
	}
}

// forgetIn opens the job's store for writing, forgets in it and closes it.
func forgetIn(ctx context.Context, j *pipeline.Job, o ForgetOptions) (*Forgetting, error) {
	store, err := OpenStore(ctx, j, o.Run, true, true)
	if err != nil {
		return nil, err
	}
	f, err := Forget(store.Ctx, j, store, o)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	return f, err
}
