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

// outcomeOf is the outcome of a run that stopped with runErr, its report filled (pending: the
// stage a --no-wait run stopped at).
func outcomeOf(rep *report.Report, pending string, runErr error) string {
	switch {
	case rep.BudgetStopped:
		return OutcomeBudgetStopped
	case runErr == nil && pending != "":
		return OutcomePending
	case errors.Is(runErr, stages.ErrInterrupted), errors.Is(runErr, context.Canceled):
		return OutcomeInterrupted
	case runErr != nil:
		return OutcomeFailed
	}
	return OutcomeOK
}

// recordRun appends the run, its outcome and its report to the store's runs table, also when
// the run failed or was interrupted (what it spent is spent), so `backfill diff` can show the
// LLM usage of the runs that built a graph. It writes even when ctx is cancelled.
func recordRun(ctx context.Context, store *checkpoints.Store, rep *report.Report, outcome string) error {
	body, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("recording run: %w", err)
	}
	return store.RecordRun(context.WithoutCancel(ctx), checkpoints.Run{Job: rep.Job, Shard: rep.Shard,
		FinishedAt: time.Now().UTC(), Outcome: outcome, Report: string(body)})
}
