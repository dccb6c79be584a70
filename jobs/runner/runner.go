package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
	"github.com/tkgraph/backfill/telemetry"
)

// Options are the per-invocation settings of a run.
type Options struct {
	Checkpoint string          // overrides the job's checkpoint path
	Shard      ingest.Shard    // the groups this run processes
	Clock      graph.Clock     // record time under record_time: ingest (default: the system clock)
	Progress   stages.Progress // default: none
	Log        *slog.Logger    // default: slog.Default()
	Env        jobs.LookupEnv  // where API keys and sink credentials are read (default: os.LookupEnv)
	FS         loaders.FS      // where sources are read (default: pipeline.SourceFS, local paths and s3://)
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
	// Store, when set, is the store to run on, opened for writing by OpenStore (Checkpoint is
	// then ignored); Run leaves it open. Otherwise Run opens the store and closes it.
	Store *Store
	// Ahead, when set, estimates the work the stages have still to do over the store
	// (planner.Ahead); Run calls it once the sources are ingested and gives what it returns to
	// Progress. An error only costs the estimate: it is logged.
	Ahead func(ctx context.Context, store *checkpoints.Store) ([]stages.Work, error)
	// Telemetry, when not nil, traces the run (run, stages, units, calls, batches, sink
	// batches) and counts it in metrics (package telemetry).
	Telemetry *telemetry.Telemetry
}

func (o *Options) defaults(j *pipeline.Job) {
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
		o.Env = os.LookupEnv
	}
	if o.FS == nil {
		o.FS = pipeline.SourceFS(j)
	}
}

// Run runs the job: every stage of its list (pipeline.Stages) in order, and returns the report.
// Running it again resumes: every unit whose inputs did not change is skipped. A run that fails
// on a local store it created, leaving it without an episode or a quarantined row, removes it
// (newStore.remove): a store that existed before is never removed.
func Run(ctx context.Context, j *pipeline.Job, opts Options) (rep *report.Report, err error) {
	start := time.Now()
	opts.defaults(j)
	ctx, endSpan := opts.Telemetry.Run(ctx, shardName(opts.Shard))
	outcome := ""
	defer func() {
		if outcome == "" { // it failed before the stages
			outcome = OutcomeFailed
		}
		endSpan(rep, outcome, err)
	}()
	if opts.Store != nil {
		return runOn(ctx, j, opts, opts.Store, start, &outcome)
	}
	created := newLocalStore(opts.Checkpoint)
	opened, err := OpenStore(ctx, j, opts, true, false)
	if err != nil {
		return nil, err
	}
	rep, runErr := runOn(ctx, j, opts, opened, start, &outcome)
	empty := created != nil && runErr != nil && holdsNothing(context.WithoutCancel(ctx), opened.Store)
	err = closeStore(opened, runErr, opts.Log)
	if empty {
		created.remove(opts.Log)
	}
	return rep, err
}

// runOn runs the job on an open store, which it leaves open, under the run's context runCtx
// (its span), setting *outcome once the stages ran.
func runOn(runCtx context.Context, j *pipeline.Job, opts Options, opened *Store, start time.Time, outcome *string) (*report.Report, error) {
	// ctx is cancelled when a checkpoint kept in object storage is lost; the run's span goes on
	// with it (a store opened by the caller has a context of its own).
	ctx, store := opts.Telemetry.Within(opened.Ctx, runCtx), opened.Store
	cl, err := pipeline.NewClients(j, store, opts.Env, opts.Log, opts.Stop)
	if err != nil {
		return nil, err
	}
	cl.Observe(j, opts.Telemetry)
	list, err := pipeline.Stages(j, pipeline.Inputs{FS: opts.FS, Shard: opts.Shard, Store: store, Env: opts.Env})
	if err != nil {
		return nil, err
	}
	r := &run{job: j, opts: opts, store: store, clients: cl, rep: &report.Report{Job: j.Name, Stages: map[string]stages.Stats{}, StoreFile: store.Path()},
		env: stages.Env{Store: store, LLM: cl.LLM, Embedder: cl.Embedder, Clock: opts.Clock, RecordTime: j.RecordTime,
			Concurrency: j.LLM.Concurrency, Progress: opts.Progress, Log: opts.Log, Stop: opts.Stop,
			MaxFailedRatio: j.Limits.MaxFailedRatio, Repairs: stages.NewTally(), Observer: opts.Telemetry.Units()}}
	r.rep.Shard = shardName(opts.Shard)
	r.rep.Build = &report.Build{Provider: j.LLM.Provider, Model: j.LLM.Model, Temperature: j.LLM.Temperature,
		ResponseFormat: j.LLM.ResponseFormat, Mode: j.LLM.Mode, Prompts: cl.LLM.Prompts().Version(), PromptsDir: j.LLM.PromptsDir,
		ExtractMode: j.Stages.Extract.Mode, EmbeddingProvider: j.Embedder.Provider, EmbeddingModel: j.Embedder.Model,
		Dimensions: j.Embedder.Dimensions}
	if j.BatchMode() {
		r.batches = cl.UseBatches(j, store, opts.Log, opts.Stop)
		if err := r.batches.Recover(ctx); err != nil {
			return nil, err
		}
		r.env.Batches, r.env.NoWait = r.batches, opts.NoWait
	}
	runErr := r.stages(ctx, list)
	if runErr == nil && r.pending == "" { // every step ended: the forgetting of groups completes
		runErr = purge(ctx, store, r.rep, opts)
	}
	// The report and the failed-units file are written even when the run was cancelled: they
	// count every call made, the cancelled ones included.
	runErr = r.finish(context.WithoutCancel(ctx), list, runErr)
	r.rep.Seconds = time.Since(start).Seconds()
	*outcome = outcomeOf(r.rep, r.pending, runErr)
	if runErr != nil && *outcome != OutcomeInterrupted {
		r.rep.Error = runErr.Error()
	}
	if err := recordRun(ctx, store, r.rep, *outcome); err != nil && runErr == nil {
		runErr = err
	}
	if r.rep.Purged != nil && runErr == nil {
		runErr = store.Compact(ctx)
	}
	return r.rep, runErr
}

// run is one run of a job.
type run struct {
	job     *pipeline.Job
	opts    Options
	store   *checkpoints.Store
	clients *pipeline.Clients
	env     stages.Env
	batches pipeline.BatchSet // nil online
	rep     *report.Report
	pending string // the stage a --no-wait run stopped at
}

// stages runs the stages of the list in order until one fails, the run is interrupted or (with
// --no-wait) a stage waits for provider batches, checkpointing the store after each. When it
// stops early the report names the first stage that did not finish (Report.StoppedAt).
func (r *run) stages(ctx context.Context, list []stages.Stage) error {
	list = slices.DeleteFunc(slices.Clone(list), func(s stages.Stage) bool { return slices.Contains(r.opts.Skip, s.Step().Name) })
	for i, s := range list {
		name := s.Step().Name
		if name != stages.Ingest && (i == 0 || list[i-1].Step().Name == stages.Ingest) {
			r.ahead(ctx)
		}
		r.opts.Log.Info("stage starting", "stage", name)
		sctx, endSpan := r.opts.Telemetry.Stage(ctx, name, r.stageKey(s))
		st, err := s.Run(sctx, r.env)
		endSpan(st, err)
		r.rep.Stages[name] = st
		r.opts.Log.Info("stage finished", "stage", name, "units", st.Units, "skipped", st.Skipped, "seconds", fmt.Sprintf("%.2f", st.Seconds))
		if err != nil {
			r.rep.StoppedAt = name
		} else if r.env.Stopped() { // the stop came once the stage had finished
			err = stages.ErrInterrupted
			if i+1 < len(list) {
				r.rep.StoppedAt = list[i+1].Step().Name
			}
		}
		if err == nil {
			if err = r.store.Checkpoint(ctx); err != nil {
				r.rep.StoppedAt = name
			}
		}
		if errors.Is(err, batch.ErrPending) {
			r.pending = name
			r.opts.Log.Info("stage waits for provider batches: stopping here (--no-wait); run again to continue", "stage", name)
			return nil
		}
		if err != nil {
			return fmt.Errorf("running stage %s: %w", name, err)
		}
	}
	return nil
}

// ahead gives the progress the work the stages have still to do (Options.Ahead).
func (r *run) ahead(ctx context.Context) {
	if r.opts.Ahead == nil {
		return
	}
	work, err := r.opts.Ahead(ctx, r.store)
	if err != nil {
		r.opts.Log.Info("no estimate of the time left: the progress shows each stage's alone", "err", err)
		return
	}
	r.opts.Progress.Ahead(work)
}

// stageKey is the stage's key under the run's env (its version, for its span), "" without
// telemetry or when the key cannot be computed.
func (r *run) stageKey(s stages.Stage) string {
	if r.opts.Telemetry == nil {
		return ""
	}
	k, err := s.Key(r.env)
	if err != nil {
		return ""
	}
	return k
}

// shardName is the report's name of a shard ("I/N"), "" for the whole job.
func shardName(sh ingest.Shard) string {
	if sh.Count > 1 {
		return fmt.Sprintf("%d/%d", sh.Index, sh.Count)
	}
	return ""
}
