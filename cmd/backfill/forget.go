package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/internal/suggestions"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/stages/ingest"
)

// forgetOptions are the flags of forget.
type forgetOptions struct {
	jobFlags
	groups, keys, speakers, matches []string
	dryRun, loadNow, all            bool
	report                          string
}

func newForgetCmd(c *cli) *cobra.Command {
	var o forgetOptions
	cmd := &cobra.Command{
		Use:   "forget JOB.yaml ( --group G | --episode KEY | --speaker NAME | --match TEXT )...",
		Short: "Remove episodes and everything derived from them, everywhere the job keeps a copy",
		Long: `Forget removes the episodes the flags select from the job's checkpoint store and computes again
what depended on them, as a run would without them: entities only they mentioned and facts only
they supported disappear, facts other episodes also support stay; the summaries and communities
of their groups, and the extractions whose context held them, are computed again (from the LLM
cache where their inputs did not change).

A flag given twice selects either value; different flags narrow each other (--group g1
--speaker Alice: Alice's episodes in g1). --group takes a group id as the input wrote it or as
stored; --episode a record key or an episode uuid; --speaker a speaker as the input wrote it;
--match a text in an episode's content, name or JSON record (case-sensitive). A value only
quarantined rows hold selects those rows. An empty or blank value (an unset variable) is
refused with exit 2, since it would select everything: --all forgets every episode on purpose.

It removes every other copy the job keeps: the cached LLM answers no remaining request asks
(their prompts or answers held the text), the answers of provider batches still pending that
the groups asked (discarded when collected: paid, never cached), the fact version log, the
quarantined rows that hold a selected value, the failed-units file, free pages and the
write-ahead log of the store (VACUUM), and the files the job's commands wrote from the store
(<checkpoint>.exports.json lists them): exports are written again (in place, file by file,
when their directory also holds files export did not write, which stay as they are),
timeline pages drawn again (removed when their entity is gone), and reports (run --report,
plan --json, eval and diff --json/--markdown, forget --report) have what went replaced by
[forgotten]. The graph database loses them at the group's next load; --load loads now.
--dry-run lists what would go and changes nothing. The store may be local or s3://.

The deletion is recorded in the store (what kind, a hash of each value, when, by which command,
how much), never the text. A forgotten episode stays forgotten while the source still holds
its row: later runs skip the row and count it (forgotten in the report) until it is removed
from the source. Forget does not read the sources. Interrupted or failed, it is completed by
running it (or run) again; status says that a forgetting is pending meanwhile.`,
		Example: `  backfill forget job.yaml --speaker "Jane Roe" --dry-run
  backfill forget job.yaml --speaker "Jane Roe" --load
  backfill forget job.yaml --group customer-4411
  backfill forget job.yaml --group g1 --match "4111 1111 1111 1111"
  backfill forget job.yaml --checkpoint s3://bucket/jobs/nightly.db --episode crm-1001`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringArrayVar(&o.groups, "group", nil, "forget the episodes of `GROUP` (repeatable)")
	f.StringArrayVar(&o.keys, "episode", nil, "forget the episode of record key or uuid `KEY` (repeatable)")
	f.StringArrayVar(&o.speakers, "speaker", nil, "forget the messages of speaker `NAME` (repeatable)")
	f.StringArrayVar(&o.matches, "match", nil, "forget the episodes that hold `TEXT` (repeatable; case-sensitive)")
	f.BoolVar(&o.all, "all", false, "forget every episode of the store (on purpose: a blank --match or --speaker is refused)")
	f.BoolVar(&o.dryRun, "dry-run", false, "list what would go (episodes, entities, facts, cache rows, files) and change nothing")
	f.BoolVar(&o.loadNow, "load", false, "load the changed groups into the graph database now (otherwise at the next run)")
	f.StringVar(&o.report, "report", "", "write as JSON to `FILE` what would go (--dry-run: with names and facts) or what went (counts and ids)")
	o.completeGroups(cmd)
	return cmd
}

func (o *forgetOptions) run(ctx context.Context, out io.Writer, path string) int {
	if err := o.checkSelection(); err != nil {
		return usageError("forget", err)
	}
	j, err := o.load(path)
	if err != nil {
		return fail(ctx, err)
	}
	ctx, stop, finish := drain(ctx)
	defer finish()
	ctx, tel, flush, err := startTelemetry(ctx, j)
	if err != nil {
		return fail(ctx, err)
	}
	defer flush()
	ro := runner.Options{Checkpoint: j.Checkpoint, Progress: newProgress(os.Stderr), Stop: stop, Telemetry: tel}
	if err := (runner.ForgetOptions{Load: o.loadNow}).Check(j); err != nil {
		return fail(ctx, err)
	}
	store, err := runner.OpenStore(ctx, j, ro, !o.dryRun, true)
	if err != nil {
		return fail(ctx, err)
	}
	code := o.forget(store.Ctx, out, j, store, ro)
	if err := store.Close(); err != nil {
		return fail(ctx, err)
	}
	return code
}

// forget forgets what the flags select in the open store and rewrites the files the job's
// commands wrote from it.
func (o *forgetOptions) forget(ctx context.Context, out io.Writer, j *pipeline.Job, store *runner.Store, ro runner.Options) int {
	sel, originals, already, err := o.selection(ctx, store.Store)
	if err != nil {
		return fail(ctx, err)
	}
	for _, a := range already {
		fmt.Fprintf(os.Stderr, "backfill: %s\n", termtext.Message(a))
	}
	fo := runner.ForgetOptions{Run: ro, Selection: sel, Originals: originals, DryRun: o.dryRun, Load: o.loadNow}
	f, err := runner.Forget(ctx, j, store, fo)
	side := sideFiles(j, store.Store)
	if f != nil {
		texts := f.Texts() // what the files the job wrote may still hold, before Redact drops it
		if !o.dryRun {
			f.Redact() // what went is not written out again
		}
		outputs, _ := readOutputs(side)
		writeForgetting(out, j, side, f, outputs, o.dryRun)
		if o.report != "" {
			b, _ := json.MarshalIndent(f, "", "  ")
			if werr := safefile.WriteFile(o.report, append(b, '\n')); werr != nil && err == nil {
				err = fmt.Errorf("writing report: %w", werr)
			} else if werr == nil {
				recordFile(j, outputRecord{Kind: outputReport, File: o.report, Command: "forget"})
			}
		}
		if err == nil && !o.dryRun {
			err = refreshOutputs(ctx, out, j, store.Store, side, texts)
		}
	}
	if err != nil {
		return fail(ctx, err)
	}
	if o.dryRun {
		return exitOK
	}
	if f.Report != nil && f.Report.FailedUnits > 0 {
		fmt.Fprintf(os.Stderr, "backfill: %d units failed: their LLM answers stayed bad (see %s); run again to retry them\n",
			f.Report.FailedUnits, termtext.Value(runner.FailedFile(side)))
		return exitPartial
	}
	return exitOK
}

// checkSelection refuses a selection that selects nothing or, by accident, everything: no
// flag at all, or a value that is empty or blank (an unset shell variable: --match "" is in
// every episode). --all forgets every episode on purpose, and then takes no other flag.
func (o *forgetOptions) checkSelection() error {
	n := len(o.groups) + len(o.keys) + len(o.speakers) + len(o.matches)
	switch {
	case o.all && n > 0:
		return fmt.Errorf("--all forgets every episode of the store: give it alone, or select with --group, --episode, --speaker, --match")
	case o.all:
		return nil
	case n == 0:
		return fmt.Errorf("give at least one of --group, --episode, --speaker, --match (or --all for every episode)")
	}
	for _, f := range []struct {
		flag string
		vals []string
	}{{"--group", o.groups}, {"--episode", o.keys}, {"--speaker", o.speakers}, {"--match", o.matches}} {
		for _, v := range f.vals {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("%s %q is empty or blank (an unset variable?): it would select every episode; to forget every episode give --all", f.flag, v)
			}
		}
	}
	return nil
}

// selection turns the flags into the store's selection: group ids as stored (and as the input
// wrote them), each value checked against the store. A value that selects no episode is an
// error naming the nearest groups or speakers, unless quarantined rows hold it (their rows are
// forgotten) or an earlier deletion forgot it (then it is listed in already and selects
// nothing; a flag all of whose values were forgotten before empties the selection, since flags
// narrow each other). --all selects every group.
func (o *forgetOptions) selection(ctx context.Context, store *checkpoints.Store) (checkpoints.Selection, []string, []string, error) {
	var sel checkpoints.Selection
	var originals, already []string
	if o.all {
		groups, err := store.Groups(ctx)
		return checkpoints.Selection{Groups: groups}, nil, nil, err
	}
	dels, err := store.Deletions(ctx)
	if err != nil {
		return sel, nil, nil, err
	}
	forgotten := func(kind, v string) (checkpoints.Deletion, bool) {
		h := checkpoints.HashValue(kind, v)
		for _, d := range slices.Backward(dels) {
			if slices.ContainsFunc(d.Selectors, func(s checkpoints.Selector) bool { return s.Kind == kind && s.Hash == h }) {
				return d, true
			}
		}
		return checkpoints.Deletion{}, false
	}
	emptied := false
	check := func(flag, kind string, given []string, id func(string) string, one func(string) checkpoints.Selection,
		unknown func(string) error) ([]string, error) {
		var out []string
		for _, v := range given {
			stored := id(v)
			eps, err := store.SelectEpisodes(ctx, one(stored))
			if err != nil {
				return nil, err
			}
			if len(eps) > 0 {
				out = append(out, stored)
				continue
			}
			if n, err := store.QuarantineMatching(ctx, runner.QuarantineValues(one(stored), nil), 0); err != nil {
				return nil, err
			} else if n > 0 { // only quarantined rows hold it: they go
				out = append(out, stored)
				continue
			}
			if d, ok := forgotten(kind, stored); ok {
				already = append(already, fmt.Sprintf("%s %q was forgotten by deletion %d (%s): nothing left to forget",
					flag, v, d.Seq, d.At.Format("2006-01-02 15:04:05Z07:00")))
				continue
			}
			return nil, unknown(v)
		}
		if len(given) > 0 && len(out) == 0 {
			emptied = true
		}
		return out, nil
	}
	same := func(v string) string { return v }
	if sel.Groups, err = check("--group", checkpoints.SelectGroup, o.groups, loaders.MapGroupID,
		func(v string) checkpoints.Selection { return checkpoints.Selection{Groups: []string{v}} },
		func(v string) error { _, _, err := storeGroup(ctx, store, v); return err }); err != nil {
		return sel, nil, nil, err
	}
	for _, g := range sel.Groups {
		if orig, ok, err := store.GroupOriginal(ctx, g); err != nil {
			return sel, nil, nil, err
		} else if ok && orig != g {
			originals = append(originals, orig)
		}
	}
	if sel.Keys, err = check("--episode", checkpoints.SelectEpisode, o.keys, same,
		func(v string) checkpoints.Selection { return checkpoints.Selection{Keys: []string{v}} },
		func(v string) error {
			return fmt.Errorf("--episode %q is neither a record key nor an episode uuid of checkpoint %s", v, store.Path())
		}); err != nil {
		return sel, nil, nil, err
	}
	if sel.Speakers, err = check("--speaker", checkpoints.SelectSpeaker, o.speakers, same,
		func(v string) checkpoints.Selection { return checkpoints.Selection{Speakers: []string{v}} },
		func(v string) error { return unknownSpeaker(ctx, store, v) }); err != nil {
		return sel, nil, nil, err
	}
	if sel.Matches, err = check("--match", checkpoints.SelectMatch, o.matches, same,
		func(v string) checkpoints.Selection { return checkpoints.Selection{Matches: []string{v}} },
		func(v string) error {
			return fmt.Errorf("--match %q is in no episode of checkpoint %s", v, store.Path())
		}); err != nil {
		return sel, nil, nil, err
	}
	if emptied {
		return checkpoints.Selection{}, nil, already, nil
	}
	return sel, originals, already, nil
}

// unknownSpeaker is the error of a --speaker no episode has, naming the nearest speakers.
func unknownSpeaker(ctx context.Context, store *checkpoints.Store, given string) error {
	speakers, err := store.Speakers(ctx)
	if err != nil {
		return err
	}
	hint := "no episode has a speaker"
	if len(speakers) > 0 {
		hint = "its speakers: " + joinShown(speakers, shownGroups)
		if near := suggestions.Near(given, speakers); near != "" {
			hint = fmt.Sprintf("did you mean %q? %s", near, hint)
		}
	}
	return fmt.Errorf("--speaker %q is the speaker of no episode of checkpoint %s; %s", given, store.Path(), hint)
}

// joinShown joins the first n names, saying how many there are in all when there are more.
func joinShown(names []string, n int) string {
	out := ""
	for i, s := range names[:min(len(names), n)] {
		if i > 0 {
			out += ", "
		}
		out += termtext.Value(s)
	}
	if len(names) > n {
		out += fmt.Sprintf(", … (%d in all)", len(names))
	}
	return out
}

// shownForgotten is how many items of each kind a dry run lists (--report lists all).
const shownForgotten = 200

// writeForgetting prints what a forgetting removed, or with dryRun would remove; side is where
// the files beside the store live (pipeline.Job.SideFiles).
func writeForgetting(w io.Writer, j *pipeline.Job, side string, f *runner.Forgetting, outputs []outputRecord, dryRun bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	verb := "forgotten"
	if dryRun {
		verb = "would go"
	}
	if len(f.Episodes) == 0 && len(f.Pending) == 0 && f.Quarantined == 0 {
		fmt.Fprintf(tw, "nothing to forget\n")
		return
	}
	fmt.Fprintf(tw, "%s\t%d episodes of %d groups; %d entities only they mentioned; %d facts only they supported\n",
		verb, len(f.Episodes), len(f.Impact.Groups), len(f.Impact.Entities), len(f.Impact.Facts))
	if dryRun {
		listForgetting(tw, f)
	}
	if len(f.Pending) > 0 {
		fmt.Fprintf(tw, "pending\t%d groups an earlier deletion left to compute again: completed now\n", len(f.Pending))
	}
	fmt.Fprintf(tw, "cache\t%d cached answers of these groups are checked: those no remaining request asks are deleted\n", f.Impact.CacheRows)
	if d := f.Deletion; d != nil && d.BatchRequests > 0 {
		fmt.Fprintf(tw, "batches\t%d requests of provider batches still pending carried their text: their answers are discarded when collected (paid, never cached)\n", d.BatchRequests)
	}
	fmt.Fprintf(tw, "quarantine\t%d quarantined rows hold a selected value\n", f.Quarantined)
	fmt.Fprintf(tw, "files\t%s (compacted: VACUUM, write-ahead log truncated), %s (rewritten), %s\n",
		termtext.Value(j.Checkpoint), termtext.Value(runner.FailedFile(side)), termtext.Value(ingest.QuarantineFile(side)))
	if dryRun {
		for _, r := range outputs {
			fmt.Fprintf(tw, "%s\t%s: would be %s\n", r.kind(), termtext.Value(r.path()),
				map[bool]string{true: "rewritten", false: "checked for what goes (replaced by [forgotten])"}[r.kind() != outputReport])
		}
	}
	switch {
	case j.Sink.Kind == "sqlite":
	case f.Report != nil && f.Report.Load != nil:
		fmt.Fprintf(tw, "sink\t%s: loaded now (%d stale nodes and relationships removed)\n", j.Sink.Kind, f.Report.Load.Deleted)
	case dryRun:
		fmt.Fprintf(tw, "sink\t%s: the groups' next load removes them (--load: now)\n", j.Sink.Kind)
	default:
		fmt.Fprintf(tw, "sink\t%s: the groups' next load removes them (backfill run, or forget --load)\n", j.Sink.Kind)
	}
	if d := f.Deletion; d != nil {
		fmt.Fprintf(tw, "recorded\tdeletion %d at %s (kinds and hashes of the values, never the text)\n", d.Seq, d.At.Format("2006-01-02T15:04:05Z07:00"))
	}
	if r := f.Report; r != nil && r.Purged != nil {
		fmt.Fprintf(tw, "purged\t%d groups computed again; %d cached answers deleted\n", r.Purged.GroupsDone, r.Purged.CacheRows)
	}
}

// listForgetting lists what a dry run found, up to shownForgotten items of each kind.
func listForgetting(tw io.Writer, f *runner.Forgetting) {
	for i, e := range f.Episodes {
		if i == shownForgotten {
			fmt.Fprintf(tw, "\t… %d more episodes (--report lists them all)\n", len(f.Episodes)-i)
			break
		}
		fmt.Fprintf(tw, "episode\t%s\tgroup %s\t%s\tspeaker %q\tkey %q\n", e.UUID, e.GroupID, e.ReferenceTime.Format("2006-01-02T15:04:05Z07:00"), e.Speaker, e.RecordKey)
	}
	for i, e := range f.Impact.Entities {
		if i == shownForgotten {
			fmt.Fprintf(tw, "\t… %d more entities\n", len(f.Impact.Entities)-i)
			break
		}
		fmt.Fprintf(tw, "entity\t%s\tgroup %s\t%q\n", e.UUID, e.GroupID, e.Name)
	}
	for i, x := range f.Impact.Facts {
		if i == shownForgotten {
			fmt.Fprintf(tw, "\t… %d more facts\n", len(f.Impact.Facts)-i)
			break
		}
		fmt.Fprintf(tw, "fact\t%s\tgroup %s\t%s: %q\n", x.UUID, x.GroupID, x.Name, x.Fact)
	}
}
