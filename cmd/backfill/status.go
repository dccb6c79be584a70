package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/planner"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// statusOptions are the flags of status.
type statusOptions struct {
	jobFlags
	group string
}

func newStatusCmd(c *cli) *cobra.Command {
	var o statusOptions
	cmd := &cobra.Command{
		Use:   "status JOB.yaml",
		Short: "Show a job's progress per stage from its checkpoint store",
		Long: `Status shows, from the checkpoint store, how the last run ended (complete, interrupted or failed
in a stage, with batches pending, its failed units), what the last complete run built the graph
with (models, prompt set version, settings), what a run would lack on this machine (MISSING:
an API key, an input file, a reachable sink), the episodes and groups staged, the groups whose input id
was rewritten (group_policy: map), the rows the last run quarantined, the units each stage has
done and failed (their LLM answers stayed bad; the next run retries them) out of how many, and
the counts of entities, facts, mentions and communities. A unit is done when its fingerprint on
record is the one a run of the job, with the same --set flags, would compute now (as plan and
run judge it); one done under other settings (another model, other options) or over inputs that
changed is counted as outdated: the next run does it again. --group shows one group (its id as
the input wrote it, or as stored; both forms are printed). In batch
mode it also lists every open provider batch and the last 20 delivered or lost ones, with their
state as last polled, their counts and the reason of a failed or lost batch.

Status only reads the store: it works while a run holds it, and on read-only media.`,
		Example: `  backfill status jobs/examples/demo.yaml
  backfill status jobs/examples/demo.yaml --group alice`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args[0]))
		},
	}
	o.register(cmd)
	o.registerGroup(cmd, &o.group)
	return cmd
}

func (o *statusOptions) run(ctx context.Context, out io.Writer, path string) int {
	j, store, err := o.openRun(ctx, path)
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	printText(out, func(w io.Writer) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		if o.group != "" {
			err = groupStatus(ctx, tw, j, store, o.group)
		} else {
			err = storeStatus(ctx, tw, j, path, store)
		}
		tw.Flush()
	})
	if err != nil {
		return fail(ctx, err)
	}
	return exitOK
}

// storeStatus prints the progress of every stage over the whole store, and what a run of the job
// at jobFile would lack here.
func storeStatus(ctx context.Context, w io.Writer, j *pipeline.Job, jobFile string, store *checkpoints.Store) error {
	c, err := store.Count(ctx)
	if err != nil {
		return err
	}
	groups, err := store.Groups(ctx)
	if err != nil {
		return err
	}
	counts, err := store.StageCounts(ctx)
	if err != nil {
		return err
	}
	mapped, _, err := store.MappedGroups(ctx, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "checkpoint\t%s\n", j.Checkpoint)
	for _, n := range runner.Preflight(ctx, j, jobFile, nil) {
		fmt.Fprintf(w, "MISSING\t%s (a run refuses to start without it)\n", termtext.Message(n.String()))
	}
	if err := writeRuns(ctx, w, store); err != nil {
		return err
	}
	fmt.Fprintf(w, "episodes\t%d in %d groups\n", c.Episodes, len(groups))
	if mapped > 0 {
		fmt.Fprintf(w, "groups mapped\t%d (ids outside [A-Za-z0-9_-] rewritten; status --group ID shows both forms)\n", mapped)
	}
	fmt.Fprintf(w, "quarantined\t%d (last run)\n", c.Quarantined)
	if err := writeForgetPending(ctx, w, store, ""); err != nil {
		return err
	}
	current, err := planner.Current(ctx, j, store, "", nil)
	if err != nil {
		return err
	}
	recorded, failed := map[string]int{}, map[string]int{}
	for _, s := range counts {
		recorded[s.Stage], failed[s.Stage] = s.Units, s.Failed
	}
	rows := make([]stageRow, 0, len(current))
	for _, e := range current {
		rows = append(rows, stageRow{name: e.Stage, done: e.Done, failed: failed[e.Stage], recorded: recorded[e.Stage], of: e.Units})
	}
	writeStageRows(w, rows)
	writeCounts(w, c)
	return writeBatches(ctx, w, store)
}

// writeRuns says how the last recorded run ended and what the last complete run built the graph
// with (the runs table).
func writeRuns(ctx context.Context, w io.Writer, store *checkpoints.Store) error {
	last, ok, err := store.LastRun(ctx, "")
	if err != nil {
		return err
	}
	if !ok {
		fmt.Fprintf(w, "last run\tnone recorded\n")
		return nil
	}
	var rep report.Report
	_ = json.Unmarshal([]byte(last.Report), &rep) // a report that does not read says less
	fmt.Fprintf(w, "last run\t%s, %s\n", last.FinishedAt.UTC().Format("2006-01-02 15:04:05 UTC"), runOutcome(last.Outcome, &rep))
	built, ok, err := store.LastRun(ctx, runner.OutcomeOK)
	if err != nil {
		return err
	}
	var b report.Report
	if ok {
		_ = json.Unmarshal([]byte(built.Report), &b)
	}
	switch {
	case !ok:
		fmt.Fprintf(w, "built with\tno run has completed\n")
	case b.Build == nil:
		fmt.Fprintf(w, "built with\tnot recorded (the last complete run, %s, came before runs recorded it)\n", built.FinishedAt.UTC().Format("2006-01-02"))
	default:
		x := b.Build
		prompts := "built in"
		if x.PromptsDir != "" {
			prompts = "from " + termtext.Value(x.PromptsDir)
		}
		fmt.Fprintf(w, "built with\tmodel %s (%s, temperature %g, %s, %s; extraction %s), prompts %s (%s); embeddings %s (%s, %d dimensions); last complete run %s\n",
			termtext.Value(x.Model), x.Provider, x.Temperature, x.ResponseFormat, x.Mode, x.ExtractMode, x.Prompts, prompts,
			termtext.Value(x.EmbeddingModel), x.EmbeddingProvider, x.Dimensions, built.FinishedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
	}
	return nil
}

// runOutcome says how a recorded run ended.
func runOutcome(outcome string, rep *report.Report) string {
	var msg string
	switch outcome {
	case runner.OutcomeOK:
		msg = "complete"
	case runner.OutcomeInterrupted:
		msg = "interrupted in stage " + orUnknown(rep.StoppedAt) + " (run again to resume)"
	case runner.OutcomePending:
		msg = "stopped in stage " + orUnknown(rep.StoppedAt) + " with units waiting for provider batches (run again to continue)"
		if rep.Batch != nil {
			msg = fmt.Sprintf("stopped in stage %s with %d provider batches pending (run again to continue)", orUnknown(rep.Batch.PendingStage), rep.Batch.Pending)
		}
	case runner.OutcomeBudgetStopped:
		msg = "stopped at the budget (limits.max_cost_usd) in stage " + orUnknown(rep.StoppedAt)
	case runner.OutcomeFailed:
		msg = "failed in stage " + orUnknown(rep.StoppedAt)
		if rep.Error != "" {
			msg += ": " + termtext.Message(rep.Error)
		}
	default:
		msg = termtext.Value(outcome)
	}
	if rep.FailedUnits > 0 {
		msg += fmt.Sprintf("; %d units failed (their LLM answers stayed bad; the next run retries them)", rep.FailedUnits)
	}
	return msg
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

// writeForgetPending says when a forgetting of the store's groups (of group, unless "") is not
// complete: a forget or a mirror run removed their episodes, but what was derived from them
// (cached answers, summaries, communities, the files written from the store) is not all gone
// until a forget or a run completes it.
func writeForgetPending(ctx context.Context, w io.Writer, store *checkpoints.Store, group string) error {
	pending, err := store.PendingGroups(ctx)
	if err != nil {
		return err
	}
	if group != "" {
		pending = slices.DeleteFunc(pending, func(g string) bool { return g != group })
	}
	if len(pending) == 0 {
		return nil
	}
	fmt.Fprintf(w, "forgetting\tPENDING in %d groups (%s): their episodes are gone, but cached answers and what was derived from them may still hold their text; run the same `backfill forget` again, or `backfill run`, to complete it\n",
		len(pending), joinShown(pending, shownGroups))
	return nil
}

// maxDeliveredShown bounds the delivered and lost batches status lists (every open batch is
// listed).
const maxDeliveredShown = 20

// writeBatches lists the provider batches of the store (batch mode): every open batch and the
// last delivered or lost ones, with their state as last polled, their counts and the reason of
// a failed or lost batch.
func writeBatches(ctx context.Context, w io.Writer, store *checkpoints.Store) error {
	all, err := store.Batches(ctx)
	if err != nil || len(all) == 0 {
		return err
	}
	open, delivered, lost := 0, 0, 0
	for _, b := range all {
		switch {
		case b.Open():
			open++
		case b.State == batch.Lost:
			lost++
		default:
			delivered++
		}
	}
	fmt.Fprintf(w, "\nbatches\t%d open, %d delivered, %d lost\n", open, delivered, lost)
	fmt.Fprintf(w, "batch\tkind\tprovider id\tstate\trequests\tcompleted\tfailed\tanswers\tinvalid\terrors\tunfinished\tupdated\treason\n")
	skip := max(delivered+lost-maxDeliveredShown, 0)
	for _, b := range all {
		if !b.Open() {
			if skip > 0 {
				skip--
				continue
			}
		}
		state := b.State
		if !b.Open() {
			state += " (" + b.Ended + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", b.ID, b.Kind, b.ProviderID, state, b.Requests,
			b.Completed, b.Failed, b.Answers, b.Invalid, b.Errors, b.Unfinished, b.UpdatedAt.Format(time.RFC3339), b.Reason)
	}
	return nil
}

// groupStatus prints one group's ids and the progress of every stage over it.
func groupStatus(ctx context.Context, w io.Writer, j *pipeline.Job, store *checkpoints.Store, given string) error {
	id, written, err := storeGroup(ctx, store, given)
	if err != nil {
		return err
	}
	c, err := store.GroupCount(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "checkpoint\t%s\n", j.Checkpoint)
	fmt.Fprintf(w, "group\t%s\n", id)
	if written != id {
		fmt.Fprintf(w, "written as\t%s\n", termtext.Value(written))
	}
	fmt.Fprintf(w, "episodes\t%d\n", c.Episodes)
	if err := writeForgetPending(ctx, w, store, id); err != nil {
		return err
	}
	current, err := planner.Current(ctx, j, store, id, nil)
	if err != nil {
		return err
	}
	rows := make([]stageRow, 0, len(current))
	for _, e := range current {
		var fps []string
		total := 1
		if stages.StepOf(e.Stage).Unit == stages.UnitEpisode {
			m, err := store.EpisodeFingerprints(ctx, e.Stage, id)
			if err != nil {
				return err
			}
			for _, fp := range m {
				fps = append(fps, fp)
			}
			total = c.Episodes
		} else if fp, ok, err := store.Fingerprint(ctx, e.Stage, id); err != nil {
			return err
		} else if ok {
			fps = append(fps, fp)
		}
		r := stageRow{name: e.Stage, done: e.GroupDone, of: total}
		for _, fp := range fps {
			if strings.HasPrefix(fp, checkpoints.FailedPrefix) {
				r.failed++
			} else {
				r.recorded++
			}
		}
		rows = append(rows, r)
	}
	writeStageRows(w, rows)
	writeCounts(w, c)
	return nil
}

// stageRow is a stage's line of status: its units done under the job's current settings, failed,
// recorded as done (under whatever settings), and how many there are.
type stageRow struct {
	name                       string
	done, failed, recorded, of int
}

// writeStageRows prints the stage table; units recorded as done but not done under the current
// settings are outdated, explained once below the table.
func writeStageRows(w io.Writer, rows []stageRow) {
	fmt.Fprintf(w, "\nstage\tunits done\tfailed\toutdated\tof\n")
	anyOutdated := false
	for _, r := range rows {
		outdated := max(r.recorded-r.done, 0)
		anyOutdated = anyOutdated || outdated > 0
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\n", r.name, r.done, r.failed, outdated, r.of)
	}
	if anyOutdated {
		fmt.Fprintf(w, "outdated\tunits done under other settings (another model, other --set flags or options) or over inputs that changed since: a run of the job as given here does them again\n")
	}
}

func writeCounts(w io.Writer, c checkpoints.Counts) {
	fmt.Fprintf(w, "\nentities\t%d\nfacts\t%d (%d invalidated)\nmentions\t%d\ncommunities\t%d\n",
		c.Entities, c.Facts, c.FactsInvalidated, c.Mentions, c.Communities)
}
