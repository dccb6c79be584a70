package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/planner"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/stages/ingest"
)

// runOptions are the flags of run.
type runOptions struct {
	jobFlags
	shard, report, cpuProfile string
	wait, noWait              bool
}

func newRunCmd(c *cli) *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run JOB.yaml",
		Short: "Ingest a job's sources and run every stage (resumable)",
		Long: `Run first checks what the job needs from this machine, before it creates the store or asks
anything: the API key of an openai provider whose base_url is not on loopback (or whose job
names api_key_env), every local input file, and a connection to a graph database sink. What is
missing is listed and the run exits 2 with nothing started. A run that fails on a store it
created and staged nothing in removes it.

Run ingests the job's sources into its checkpoint store and runs every stage: extract, resolve,
temporal, summarize, embed, community, and load when sink.kind is memgraph or neo4j. It prints
a summary table; --report also writes the JSON report.

Each stage's unit (an episode or a group) commits with a fingerprint of its inputs: running the
same command again skips every unchanged unit and answers every LLM call it made before from the
cache, so a killed run resumes where it stopped. A run holds its checkpoint store (an OS lock on
<checkpoint>.lock): a second run on it fails at once, naming the holder's pid and host.

The first SIGINT/SIGTERM drains (units in flight finish and commit, nothing new starts, exit
130 after SIGINT, 143 after SIGTERM); a second one aborts the units in flight. Exit 3: finished
with quarantined rows (see <checkpoint>.quarantine.jsonl), with failed units ("N units failed":
LLM answers that stayed bad, listed in <checkpoint>.failed.jsonl; run again to retry them) or
stopped at limits.max_cost_usd.

--checkpoint s3://BUCKET/KEY (or the job's checkpoint) keeps the store in object storage: the run
works on a local copy (checkpoint_sync.local, default under the user cache), restored from the
bucket's snapshot when missing or older, and uploads a snapshot at each stage boundary, every
checkpoint_sync.seconds (300), at once on the first SIGINT/SIGTERM and when it ends. A lease
object in the bucket (KEY.lease) allows one run per store: a second fails at once naming the
holder; a lease not renewed for checkpoint_sync.lease_seconds (60) expires.

In batch mode (llm.mode or embedder.mode: batch) the requests go to the provider's Batch API at
its batch price; --wait (the default) waits for the batches with a progress line per batch,
--no-wait submits them and exits 0 with "N batches pending"; running again continues.

With OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own endpoint) set, the run exports its traces
and metrics over OTLP, configured by the standard OTEL_* variables (docs/telemetry.md); without
one it starts no exporter.`,
		Example: `  backfill run jobs/examples/demo.yaml
  backfill run job.yaml --report report.json --set llm.concurrency=8
  backfill run job.yaml --shard 0/4 --checkpoint .backfill/shard0.db
  backfill run job.yaml --set llm.mode=batch --no-wait`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.shard, "shard", "", "process only shard `I/N` (0-based): the groups whose stable hash modulo N is I (one checkpoint per shard)")
	f.StringVar(&o.report, "report", "", "write the run report as JSON to `FILE`")
	f.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (go tool pprof)")
	f.BoolVar(&o.wait, "wait", true, "batch mode: wait for the provider batches, with a progress line per batch")
	f.BoolVar(&o.noWait, "no-wait", false, `batch mode: submit the batches, then exit 0 with "N batches pending" (run again to continue)`)
	cmd.MarkFlagsMutuallyExclusive("wait", "no-wait")
	return cmd
}

// run runs the job at path; the context is cancelled at the first interrupt, which drains.
func (o *runOptions) run(ctx context.Context, out io.Writer, path string) int {
	sh, err := parseShard(o.shard)
	if err != nil {
		return usageError("run", err)
	}
	j, err := o.load(path)
	if err != nil {
		return fail(ctx, err)
	}
	if needs := runner.Preflight(ctx, j, path, nil); len(needs) > 0 {
		writeNeeds(os.Stderr, "backfill run: the job needs what this machine lacks; nothing was started (no store created, no LLM asked):", needs)
		return exitUsage
	}
	if o.cpuProfile != "" {
		stopProfile, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return fail(ctx, err)
		}
		defer stopProfile()
	}
	ctx, stop, finish := drain(ctx)
	defer finish()
	ctx, tel, flush, err := startTelemetry(ctx, j)
	if err != nil {
		return fail(ctx, err)
	}
	defer flush()
	prog := newProgress(os.Stderr)
	rep, runErr := runner.Run(ctx, j, runner.Options{Checkpoint: j.Checkpoint, Shard: sh, Progress: prog, Stop: stop,
		NoWait: o.noWait || !o.wait, Telemetry: tel, Ahead: func(ctx context.Context, store *checkpoints.Store) ([]stages.Work, error) {
			return planner.Ahead(ctx, j, store, slog.New(slog.DiscardHandler)) // the run logs what the estimate would
		}})
	if rep != nil && (runErr == nil || rep.StoppedAt != stages.Ingest) { // a run that read no input has nothing to show
		printText(out, func(w io.Writer) { rep.WriteTable(w, stages.StepNames()) })
		if o.report != "" {
			b, _ := json.MarshalIndent(rep, "", "  ")
			if err := safefile.WriteFile(o.report, append(b, '\n')); err != nil && runErr == nil {
				runErr = fmt.Errorf("writing report: %w", err)
			} else if err == nil {
				recordFile(j, outputRecord{Kind: outputReport, File: o.report, Command: "run"})
			}
		}
	}
	if errors.Is(runErr, pacing.ErrBudgetExceeded) {
		fmt.Fprintf(os.Stderr, "backfill: stopped at the budget (%s); raise limits.max_cost_usd and run again to resume\n", termtext.Message(runErr.Error()))
		return exitPartial
	}
	if runErr != nil {
		return fail(ctx, runErr)
	}
	if rep.Purged != nil { // the run completed a forgetting (rows gone from a mirror source, or a forget it finished)
		if err := refreshAfterRun(ctx, j); err != nil {
			return fail(ctx, err)
		}
	}
	code := exitOK
	if rep.Pending() {
		fmt.Fprintf(os.Stderr, "backfill: %d batches pending (stage %s); run the same command again to continue\n",
			rep.Batch.Pending, rep.Batch.PendingStage)
	}
	if rep.Quarantined > 0 {
		fmt.Fprintf(os.Stderr, "backfill: finished with %d quarantined rows (see %s.quarantine.jsonl)\n", rep.Quarantined, termtext.Value(rep.StoreFile))
		code = exitPartial
	}
	if rep.FailedUnits > 0 {
		fmt.Fprintf(os.Stderr, "backfill: %d units failed: their LLM answers stayed bad (see %s); run again to retry them\n",
			rep.FailedUnits, termtext.Value(runner.FailedFile(rep.StoreFile)))
		code = exitPartial
	}
	return code
}

func parseShard(s string) (ingest.Shard, error) {
	if s == "" {
		return ingest.Shard{Index: 0, Count: 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return ingest.Shard{}, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", s)
	}
	return ingest.Shard{Index: i, Count: n}, nil
}

// startCPUProfile starts writing a CPU profile to path (through internal/safefile) and returns
// the function that ends it and puts the file in place.
func startCPUProfile(path string) (func(), error) {
	f, err := safefile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("starting CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Commit(); err != nil {
			slog.Error("writing the CPU profile", "err", err)
		}
	}, nil
}

// writeNeeds prints a heading and what a job needs and lacks (runner.Preflight), one line each.
func writeNeeds(w io.Writer, heading string, needs []jobs.Need) {
	fmt.Fprintln(w, heading)
	for _, n := range needs {
		fmt.Fprintf(w, "  %s\n", termtext.Message(n.String()))
	}
}
