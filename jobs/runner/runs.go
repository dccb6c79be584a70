package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// Outcomes of a run as the runs table records them.
const (
	OutcomeOK            = "ok"
	OutcomeFailed        = "failed"
	OutcomeInterrupted   = "interrupted"
	OutcomeBudgetStopped = "budget_stopped"
	OutcomePending       = "pending" // --no-wait: stopped while units wait for provider batches
)

// recordRun appends the run and its report to the store's runs table, also when the run failed
// or was interrupted (what it spent is spent), so `backfill diff` can show the LLM usage of the
// runs that built a graph. It writes even when ctx is cancelled.
func recordRun(ctx context.Context, store *checkpoints.Store, rep *report.Report, pending string, runErr error) error {
	outcome := OutcomeOK
	switch {
	case rep.BudgetStopped:
		outcome = OutcomeBudgetStopped
	case runErr == nil && pending != "":
		outcome = OutcomePending
	case errors.Is(runErr, stages.ErrInterrupted), errors.Is(runErr, context.Canceled):
		outcome = OutcomeInterrupted
	case runErr != nil:
		outcome = OutcomeFailed
	}
	if runErr != nil && outcome != OutcomeInterrupted {
		rep.Error = runErr.Error()
	}
	body, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("recording run: %w", err)
	}
	return store.RecordRun(context.WithoutCancel(ctx), checkpoints.Run{Job: rep.Job, Shard: rep.Shard,
		FinishedAt: time.Now().UTC(), Outcome: outcome, Report: string(body)})
}
