package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/llm"
)

func cmdRun(ctx context.Context, stop <-chan struct{}, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	shard := fs.String("shard", "", "process shard I of N (I/N, 0-based)")
	report := fs.String("report", "", "write the run report as JSON to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	wait := fs.Bool("wait", true, "batch mode: wait for the provider batches, with a progress line per batch")
	noWait := fs.Bool("no-wait", false, "batch mode: submit the batches, then exit 0 with \"N batches pending\" (run again to continue)")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError("run", orErr(err, "want exactly one JOB.yaml"))
	}
	j, err := jf.load(pos[0])
	if err != nil {
		return fail(ctx, err)
	}
	sh, err := parseShard(*shard)
	if err != nil {
		return usageError("run", err)
	}
	if *cpuProfile != "" {
		stopProfile, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return fail(ctx, err)
		}
		defer stopProfile()
	}
	prog := newProgress(os.Stderr)
	rep, runErr := jobs.Run(ctx, j, jobs.RunOptions{Checkpoint: j.Checkpoint, Shard: sh, Progress: prog, Stop: stop,
		NoWait: *noWait || !*wait})
	if rep != nil {
		rep.WriteTable(os.Stdout)
		if *report != "" {
			b, _ := json.MarshalIndent(rep, "", "  ")
			if err := os.WriteFile(*report, append(b, '\n'), 0o644); err != nil && runErr == nil {
				runErr = fmt.Errorf("writing report: %w", err)
			}
		}
	}
	if errors.Is(runErr, llm.ErrBudgetExceeded) {
		fmt.Fprintf(os.Stderr, "backfill: stopped at the budget (%v); raise limits.max_cost_usd and run again to resume\n", runErr)
		return exitPartial
	}
	if runErr != nil {
		return fail(ctx, runErr)
	}
	code := exitOK
	if rep.Pending() {
		fmt.Fprintf(os.Stderr, "backfill: %d batches pending (stage %s); run the same command again to continue\n",
			rep.Batch.Pending, rep.Batch.PendingStage)
	}
	if rep.Quarantined > 0 {
		fmt.Fprintf(os.Stderr, "backfill: finished with %d quarantined rows (see %s.quarantine.jsonl)\n", rep.Quarantined, j.Checkpoint)
		code = exitPartial
	}
	if rep.FailedUnits > 0 {
		fmt.Fprintf(os.Stderr, "backfill: %d units failed: their LLM answers stayed bad (see %s); run again to retry them\n",
			rep.FailedUnits, jobs.FailedFile(j.Checkpoint))
		code = exitPartial
	}
	return code
}

func parseShard(s string) (jobs.Shard, error) {
	if s == "" {
		return jobs.Shard{Index: 0, Count: 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return jobs.Shard{}, fmt.Errorf("--shard %q: want I/N with 0 ≤ I < N", s)
	}
	return jobs.Shard{Index: i, Count: n}, nil
}

func orErr(err error, msg string) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%s", msg)
}

// startCPUProfile starts writing a CPU profile to path and returns the function that ends it.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("starting CPU profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
