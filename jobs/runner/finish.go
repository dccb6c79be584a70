package runner

import (
	"context"
	"errors"
	"log/slog"

	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// finish fills the report once the stages ended (with runErr): the budget stop, the LLM usage,
// the store's counts, every stage's own section (stages.Reporter), the batches and the
// failed-units file. It returns runErr, or the first error of its own when runErr is nil.
func (r *run) finish(ctx context.Context, list []stages.Stage, runErr error) error {
	keep := func(err error) {
		if err != nil && runErr == nil {
			runErr = err
		}
	}
	if errors.Is(runErr, pacing.ErrBudgetExceeded) {
		r.rep.BudgetStopped = true
		r.opts.Log.Warn("budget reached: stopped cleanly; raise limits.max_cost_usd and run again to resume",
			"max_cost_usd", r.job.Limits.MaxCostUSD)
	}
	r.usage()
	keep(r.counts(ctx))
	for _, s := range list {
		if rp, ok := s.(stages.Reporter); ok {
			keep(rp.Report(ctx, r.env, r.rep))
		}
	}
	if r.batches != nil {
		br, err := r.batches.Report(ctx, r.store)
		keep(err)
		if br != nil {
			br.PendingStage = r.pending
			r.rep.Batch = br
		}
	}
	keep(writeFailed(ctx, r.store, r.rep))
	return runErr
}

// usage puts the clients' usage, in total and by stage, with the answer repairs into the report.
func (r *run) usage() {
	u, repairs := r.clients.Usage(), r.env.Repairs
	r.rep.LLM = pipeline.UsageReport(u.Total, repairs.Total())
	r.rep.LLMByStage = map[string]report.LLM{}
	for s, su := range u.Stages {
		r.rep.LLMByStage[s] = pipeline.UsageReport(su, repairs.Stage(s))
	}
	for _, s := range repairs.Stages() {
		if _, ok := r.rep.LLMByStage[s]; !ok {
			r.rep.LLMByStage[s] = pipeline.UsageReport(pacing.StageUsage{}, repairs.Stage(s))
		}
	}
}

// counts puts the store's counts into the report.
func (r *run) counts(ctx context.Context) error {
	c, err := r.store.Count(ctx)
	if err != nil {
		return err
	}
	rep := r.rep
	rep.Episodes, rep.Entities, rep.Facts, rep.FactsInvalidated = c.Episodes, c.Entities, c.Facts, c.FactsInvalidated
	rep.Mentions, rep.Communities, rep.Quarantined = c.Mentions, c.Communities, c.Quarantined
	rep.GroupsMapped, rep.MappedGroups, err = r.store.MappedGroups(ctx, report.MaxMappedShown)
	return err
}

// closeStore closes the store (a store kept in object storage uploads its last snapshot) and returns
// runErr, the close's error when runErr is nil, or the cause of a checkpoint lost to another
// process.
func closeStore(store *Store, runErr error, log *slog.Logger) error {
	err := store.Close()
	switch {
	case err != nil && (runErr == nil || errors.Is(err, replica.ErrLost)):
		return err
	case err != nil:
		log.Error("closing the checkpoint store", "err", err)
	}
	return runErr
}
