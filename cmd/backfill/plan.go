package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/tkgraph/backfill/jobs"
)

// cmdPlan prints what a job would read and an estimate of its LLM calls, tokens and cost,
// without calling the LLM.
func cmdPlan(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	shard := fs.String("shard", "", "plan shard I of N (I/N, 0-based)")
	out := fs.String("json", "", "also write the plan as JSON to this file")
	sample := fs.Int("sample", jobs.DefaultPlanSample, "extraction prompts rendered at most")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError("plan", orErr(err, "want exactly one JOB.yaml"))
	}
	j, err := jf.load(pos[0])
	if err != nil {
		return fail(ctx, err)
	}
	sh, err := parseShard(*shard)
	if err != nil {
		return usageError("plan", err)
	}
	p, err := jobs.MakePlan(ctx, j, jobs.PlanOptions{Checkpoint: j.Checkpoint, Shard: sh, Sample: *sample})
	if err != nil {
		return fail(ctx, err)
	}
	p.WriteTable(os.Stdout)
	if *out != "" {
		b, _ := json.MarshalIndent(p, "", "  ")
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			return fail(ctx, fmt.Errorf("writing plan: %w", err))
		}
	}
	return exitOK
}
