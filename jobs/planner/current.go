package planner

import (
	"context"
	"log/slog"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/stages"
)

// Current finds, stage by stage over the job's stages that keep unit records (every stage but
// ingest), how many units of the job's store are done under the job's current settings: their
// fingerprint on record equals the one a run of j would compute now, found as Make finds them
// (each stage's Estimate, over the store's own episodes and groups: no source is read). A unit
// done with other settings (another model, other --set flags) or whose upstream changed is not
// done: the next run of j does it again. With group set, each estimate's GroupDone counts that
// group's units done. The store is only read; each estimate's Units and Done are exact, its
// calls are not meant to be read (one prompt is rendered).
func Current(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, group string, log *slog.Logger) ([]stages.Estimate, error) {
	return current(ctx, j, store, group, 1, log)
}

// AheadSample is how many extraction prompts Ahead renders at most.
const AheadSample = 200

// Ahead is the work the job's stages that keep unit records have still to do over the store, as
// Current finds it: each stage's units not done under the job's current settings, and the LLM
// and embedding requests they are estimated to make (the cached ones left out), from at most
// AheadSample rendered extraction prompts and the default ratios. A run gives it to its progress
// after ingest (runner.Options.Ahead), which weighs the stages' units with it for the time left.
func Ahead(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, log *slog.Logger) ([]stages.Work, error) {
	ests, err := current(ctx, j, store, "", AheadSample, log)
	if err != nil {
		return nil, err
	}
	out := make([]stages.Work, 0, len(ests))
	for _, e := range ests {
		out = append(out, stages.Work{Stage: e.Stage, Units: e.Units - e.Done,
			Requests: max(e.Calls-e.CachedCalls, 0) + e.Embeddings.Calls})
	}
	return out, nil
}

// current is Current rendering at most sample extraction prompts.
func current(ctx context.Context, j *pipeline.Job, store *checkpoints.Store, group string, sample int, log *slog.Logger) ([]stages.Estimate, error) {
	p := &Plan{Assumptions: stages.DefaultRatios()}
	opts := Options{Sample: sample, Log: log}
	opts.defaults(j)
	env, list, err := p.setUp(j, opts, store, store)
	if err != nil {
		return nil, err
	}
	env.Group = group
	var out []stages.Estimate
	for _, s := range list {
		if s.Step().Unit == "" {
			continue
		}
		est, err := s.Estimate(ctx, env)
		if err != nil {
			return nil, err
		}
		out = append(out, est)
	}
	return out, nil
}
