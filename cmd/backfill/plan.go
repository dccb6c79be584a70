package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/planner"
	"github.com/tkgraph/backfill/jobs/runner"
)

// planOptions are the flags of plan.
type planOptions struct {
	jobFlags
	shard, json string
	sample      int
}

func newPlanCmd(c *cli) *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan JOB.yaml",
		Short: "Dry run: what a job would read, its LLM calls, tokens and cost",
		Long: `Plan is a dry run that calls no LLM. It walks the stages a run walks, with the run's clients,
over a temporary store holding the checkpoint's episodes with the sources ingested over them
(exact episodes and groups). A unit whose fingerprint on record equals the one the run would
compute is done: it costs nothing, and the plan says which stages' units are done (after a
complete run, no call is left). Of the other units it renders the real extraction prompt of
every episode (of a sample of --sample when there are more) to count extraction calls and
estimate their tokens, and estimates the later stages' calls from stated ratios; the assumptions
line says where they come from: measured on the checkpoint's graph when some of its groups were
resolved under the job's settings, else the defaults (a note gives the ratios of a graph built
under other settings, such as another model, which are not used). Calls the checkpoint's cache
already answers are shown as cached and cost 0. For JSON records it shows the tokens per record before and after pruning
and how many records skip the LLM.

The "to do" line counts the units left (after a complete run: nothing to do). What a run would
lack on this machine (an API key, a reachable sink) is listed as MISSING lines; an absent input
file is an error (exit 2), as for run.

"~" marks an estimate. Plan only reads the job's checkpoint store.`,
		Example: `  backfill plan jobs/examples/tickets.yaml
  backfill plan job.yaml --json plan.json --set llm.model=gpt-4.1-mini`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.shard, "shard", "", "plan only shard `I/N` (0-based), as run --shard")
	f.StringVar(&o.json, "json", "", "also write the plan as JSON to `FILE`")
	f.IntVar(&o.sample, "sample", planner.DefaultSample, "extraction prompts rendered at most (`N`)")
	return cmd
}

// run prints the plan of the job at path.
func (o *planOptions) run(ctx context.Context, out io.Writer, path string) int {
	sh, err := parseShard(o.shard)
	if err != nil {
		return usageError("plan", err)
	}
	if o.sample < 1 {
		return usageError("plan", fmt.Errorf("--sample %d: want at least 1", o.sample))
	}
	j, err := o.load(path)
	if err != nil {
		return fail(ctx, err)
	}
	needs := runner.Preflight(ctx, j, path, nil)
	if missing := slices.DeleteFunc(slices.Clone(needs), func(n jobs.Need) bool { return !strings.HasPrefix(n.Key, "sources[") }); len(missing) > 0 {
		writeNeeds(os.Stderr, "backfill plan: the job's input is not there; nothing to plan:", missing)
		return exitUsage
	}
	p, err := planner.Make(ctx, j, planner.Options{Checkpoint: j.Checkpoint, Shard: sh, Sample: o.sample})
	if err != nil {
		return fail(ctx, err)
	}
	for _, n := range needs {
		p.Needs = append(p.Needs, n.String())
	}
	printText(out, p.WriteTable)
	if o.json != "" {
		b, _ := json.MarshalIndent(p, "", "  ")
		if err := safefile.WriteFile(o.json, append(b, '\n')); err != nil {
			return fail(ctx, fmt.Errorf("writing plan: %w", err))
		}
		recordFile(j, outputRecord{Kind: outputReport, File: o.json, Command: "plan"})
	}
	return exitOK
}
