package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/embed"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/stages/load"
	"github.com/tkgraph/backfill/stages/resolve"
	"github.com/tkgraph/backfill/stages/summarize"
	"github.com/tkgraph/backfill/stages/temporal"
)

// Shard selects the groups of one shard (ingest.Shard).
type Shard = ingest.Shard

// RunOptions are the per-invocation settings of a run.
type RunOptions struct {
	Checkpoint string // overrides the job's checkpoint path
	Shard      Shard
	Clock      graph.Clock     // record time under record_time: ingest (default: the system clock)
	Progress   stages.Progress // default: none
	Log        *slog.Logger    // default: slog.Default()
	Env        LookupEnv       // where API keys are read (default: os.LookupEnv)
	FS         loaders.FS      // where sources are read (default: SourceFS, local paths and s3://)
	// Stop, when closed, drains the run: units in flight commit, no new unit starts, and Run
	// returns stages.ErrInterrupted. Running again resumes.
	Stop <-chan struct{}
	// NoWait (batch mode) ends the run at the first stage whose units wait for provider
	// batches, once its requests are submitted (Report.Batch.PendingStage); running again
	// continues. Otherwise the run waits for the batches.
	NoWait bool
	// Skip names steps (stages.Steps) this run leaves out: forget runs without ingest, and
	// without load unless asked.
	Skip []string
}

func (o *RunOptions) defaults(j *Job) {
	if o.Checkpoint == "" {
		o.Checkpoint = j.Checkpoint
	}
	if o.Clock == nil {
		o.Clock = graph.SystemClock{}
	}
	if o.Progress == nil {
		o.Progress = stages.NoProgress{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Env == nil {
		o.Env = osLookupEnv
	}
	if o.FS == nil {
		o.FS = SourceFS(j)
	}
}

// Run runs the job: ingest, then every stage in order, and returns the report. Running it again
// resumes: every unit whose inputs did not change is skipped.
func Run(ctx context.Context, j *Job, opts RunOptions) (*Report, error) {
	start := time.Now()
	opts.defaults(j)
	ctx, lost := context.WithCancelCause(ctx) // cancelled when a checkpoint kept in object storage is lost
	defer lost(nil)
	store, err := OpenCheckpoint(ctx, j, opts.Checkpoint, CheckpointOptions{Write: true, Stop: opts.Stop, OnLost: lost, Log: opts.Log})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	cl, err := newClients(j, store, opts.Env, opts.Log, opts.Stop)
	if err != nil {
		return nil, err
	}
	rep := &Report{Job: j.Name, Stages: map[string]stages.Stats{}, StoreFile: store.Path()}
	if opts.Shard.Count > 1 {
		rep.Shard = fmt.Sprintf("%d/%d", opts.Shard.Index, opts.Shard.Count)
	}
	repairs := stages.NewTally()
	env := stages.Env{Store: store, LLM: cl.llm, Embedder: cl.embedder, Clock: opts.Clock, RecordTime: j.RecordTime,
		Concurrency: j.LLM.Concurrency, Progress: opts.Progress, Log: opts.Log, Stop: opts.Stop,
		MaxFailedRatio: j.Limits.MaxFailedRatio, Repairs: repairs}
	var batches batchSet
	if j.batchMode() {
		batches = cl.useBatches(j, store, opts.Log, opts.Stop)
		if err := batches.Recover(ctx); err != nil {
			return nil, err
		}
		env.Batches, env.NoWait = batches, opts.NoWait
	}
	steps := []struct {
		name string
		run  func() (stages.Stats, error)
	}{
		{ingest.Stage, func() (stages.Stats, error) {
			o, err := j.ingestOptions(opts.FS, opts.Shard)
			if err != nil {
				return stages.Stats{}, err
			}
			st, res, err := ingest.Run(ctx, env, o)
			rep.EpisodesReplaced, rep.Forgotten, rep.Vanished = res.Replaced, res.Forgotten, res.Vanished
			if res.Records.Records > 0 {
				rep.Records = &res.Records
			}
			return st, err
		}},
		{extract.Stage, func() (stages.Stats, error) {
			opts, counts := j.extractOptions(), stages.NewTally()
			opts.Counts = counts
			st, err := extract.Run(ctx, env, opts)
			rep.ExtractUnits = counts.Stage(extract.Stage)
			return st, err
		}},
		{resolve.Stage, func() (stages.Stats, error) {
			return resolve.Run(ctx, env, j.resolveOptions())
		}},
		{temporal.Stage, func() (stages.Stats, error) {
			return temporal.Run(ctx, env, j.temporalOptions())
		}},
		{summarize.Stage, func() (stages.Stats, error) {
			return summarize.Run(ctx, env, j.summarizeOptions())
		}},
		{embed.Stage, func() (stages.Stats, error) { return embed.Run(ctx, env) }},
		{community.Stage, func() (stages.Stats, error) {
			return community.Run(ctx, env, j.communityOptions())
		}},
	}
	if j.graphSink() {
		steps = append(steps, struct {
			name string
			run  func() (stages.Stats, error)
		}{load.Stage, func() (stages.Stats, error) {
			st, res, err := load.Run(ctx, env, j.loadOptions(store, opts.Env))
			rep.Load = res
			return st, err
		}})
	}
	var runErr error
	for _, s := range steps {
		if slices.Contains(opts.Skip, s.name) {
			continue
		}
		opts.Log.Info("stage starting", "stage", s.name)
		st, err := s.run()
		rep.Stages[s.name] = st
		opts.Log.Info("stage finished", "stage", s.name, "units", st.Units, "skipped", st.Skipped, "seconds", fmt.Sprintf("%.2f", st.Seconds))
		if err == nil && env.Stopped() {
			err = stages.ErrInterrupted
		}
		if err == nil {
			err = store.Checkpoint(ctx)
		}
		if errors.Is(err, batch.ErrPending) {
			rep.pendingStage = s.name
			opts.Log.Info("stage waits for provider batches: stopping here (--no-wait); run again to continue", "stage", s.name)
			break
		}
		if err != nil {
			runErr = fmt.Errorf("running stage %s: %w", s.name, err)
			break
		}
	}
	if runErr == nil && rep.pendingStage == "" {
		runErr = purge(ctx, store, rep, opts)
	}
	if errors.Is(runErr, pacing.ErrBudgetExceeded) {
		rep.BudgetStopped = true
		opts.Log.Warn("budget reached: stopped cleanly; raise limits.max_cost_usd and run again to resume",
			"max_cost_usd", j.Limits.MaxCostUSD)
	}
	// The report and the failed-units file are written even when the run was cancelled: they
	// count every call made, the cancelled ones included.
	done := context.WithoutCancel(ctx)
	if err := fill(done, rep, store, cl.usage(), repairs); err != nil && runErr == nil {
		runErr = err
	}
	if batches != nil {
		br, err := batches.report(done, store)
		if err != nil && runErr == nil {
			runErr = err
		}
		if br != nil {
			br.PendingStage = rep.pendingStage
			rep.Batch = br
		}
	}
	if err := writeFailed(done, store, rep); err != nil && runErr == nil {
		runErr = err
	}
	rep.Seconds = time.Since(start).Seconds()
	if err := recordRun(ctx, store, rep, runErr); err != nil && runErr == nil {
		runErr = err
	}
	if rep.Purged != nil && runErr == nil {
		runErr = store.Compact(ctx)
	}
	if err := store.Close(); err != nil { // a store kept in object storage uploads its last snapshot
		if runErr == nil {
			runErr = err
		} else {
			opts.Log.Error("closing the checkpoint store", "err", err)
		}
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		runErr = cause // the checkpoint was lost to another process
	}
	return rep, runErr
}

func fill(ctx context.Context, rep *Report, store *checkpoints.Store, u pacing.Usage, repairs *stages.Tally) error {
	rep.LLM = llmReport(u.Total, repairs.Total())
	rep.LLMByStage = map[string]LLMReport{}
	for s, su := range u.Stages {
		rep.LLMByStage[s] = llmReport(su, repairs.Stage(s))
	}
	for _, s := range repairs.Stages() {
		if _, ok := rep.LLMByStage[s]; !ok {
			rep.LLMByStage[s] = llmReport(pacing.StageUsage{}, repairs.Stage(s))
		}
	}
	c, err := store.Count(ctx)
	if err != nil {
		return err
	}
	rep.Episodes, rep.Entities, rep.Facts, rep.FactsInvalidated = c.Episodes, c.Entities, c.Facts, c.FactsInvalidated
	rep.Mentions, rep.Communities, rep.Quarantined = c.Mentions, c.Communities, c.Quarantined
	if rep.CommunitiesByGroup, err = community.CountByGroup(ctx, store); err != nil {
		return err
	}
	if t, ok, err := temporal.Totals(ctx, store); err != nil {
		return err
	} else if ok {
		rep.Temporal = &t
	}
	if rep.GroupsMapped, rep.MappedGroups, err = store.MappedGroups(ctx, MaxMappedShown); err != nil {
		return err
	}
	return nil
}

func llmReport(s pacing.StageUsage, repaired map[string]int) LLMReport {
	return LLMReport{Calls: int(s.Calls), CacheHits: int(s.CacheHits), PromptTokens: int(s.PromptTokens), CachedPromptTokens: int(s.CachedTokens),
		CompletionTokens: int(s.CompletionTokens), ReasoningTokens: int(s.ReasoningTokens), Retries: int(s.Retries),
		MaxInFlight: int(s.MaxInFlight), CostUSD: s.CostUSD, InvalidAnswers: int(s.InvalidAnswers),
		Truncated: int(s.Truncated), Salvaged: int(s.Salvaged), AnswersRepaired: repaired}
}

// extractOptions are the extract stage's options of the job (run and plan).
func (j *Job) extractOptions() extract.Options {
	x := j.Stages.Extract
	return extract.Options{Context: x.Context, ContextTokens: x.ContextTokens, Mode: x.Mode, AskChitchat: x.Chitchat == "ask",
		EntityTypes: j.entityTypes(), EdgeTypes: j.edgeTypes(), ExcludedTypes: j.Ontology.ExcludedTypes, NoLLM: x.LLM == "off"}
}

func (j *Job) entityTypes() []wire.EntityTypeIn {
	var out []wire.EntityTypeIn
	for _, t := range j.Ontology.EntityTypes {
		out = append(out, wire.EntityTypeIn{Name: t.Name, Description: t.Description, Attributes: t.Attributes})
	}
	return out
}

// cardinalities are the cardinalities the ontology's edge types set, by name.
func (j *Job) cardinalities() map[string]string {
	out := map[string]string{}
	for _, t := range j.Ontology.EdgeTypes {
		if t.Cardinality != "" {
			out[t.Name] = t.Cardinality
		}
	}
	return out
}

func (j *Job) edgeTypes() []wire.EdgeTypeIn {
	var out []wire.EdgeTypeIn
	for _, t := range j.Ontology.EdgeTypes {
		out = append(out, wire.EdgeTypeIn{Name: t.Name, Description: t.Description, Sources: t.Sources, Targets: t.Targets})
	}
	return out
}
