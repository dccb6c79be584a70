package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/graphdiff"
	"github.com/tkgraph/backfill/internal/safefile"
)

// diffOptions are the flags of diff.
type diffOptions struct {
	jobFlags
	boltFlags
	group, json, markdown, gold, html string
	limit                             int
}

func newDiffCmd(c *cli) *cobra.Command {
	var o diffOptions
	cmd := &cobra.Command{
		Use:   "diff GRAPH_A GRAPH_B",
		Short: "Show what changed between two graphs (two runs, or exports)",
		Long: `Diff shows what changed between two graphs, typically one input built twice with two prompt
versions, models or settings, or the graph Graphiti built online against backfill's of the same
history. A GRAPH is a job file with its checkpoint (the job's, or JOB.yaml@CHECKPOINT), a Parquet
export directory, or a graph Graphiti or backfill wrote into a database, read-only: Neo4j or
Memgraph by a Bolt URI (bolt://HOST:PORT; --database), FalkorDB by a redis:// URI (a graph per
group), credentials in BACKFILL_GRAPH_USER and BACKFILL_GRAPH_PASSWORD; both are read one group
at a time.

Entities match by id, then by normalised name, then by their mentions (renames with a new id,
merges, splits); facts by id, then by endpoints and predicate (sentence, valid_at, invalid_at,
expired_at changes, facts newly closed or reopened and the fact that closes them); communities
by the Jaccard similarity of their members. It prints totals per kind and the LLM calls, tokens
and cost of the runs that built each side; only a checkpoint records them, so for an export or
a database graph it says which kind of graph it read and that they are not compared. Compare
runs made under record_time: reference.

--gold FILE also scores both graphs against a gold file (as eval --gold does) and compares the
scores episode by episode with a paired bootstrap (2,000 draws of the episodes, the same for
both sides): the change of precision, recall and F1, its 95% interval, and whether B's F1 differs
from A's beyond what the choice of episodes moves. Graphs of other episodes are an error.

--html FILE writes a self-contained page: the totals and, with --gold, charts of both graphs'
gold scores with their intervals and of the paired changes.

Exit 0 whether the graphs differ or not, 1 on an error.`,
		Example: `  backfill diff job.yaml@.backfill/v1.db job.yaml@.backfill/v2.db --markdown diff.md
  backfill diff export-a/ export-b/ --group alice --json changes.json
  backfill diff bolt://127.0.0.1:7687 gold.yaml@.backfill/gold.db --gold examples/gold/gold.yaml
  backfill diff gold.yaml@.backfill/one-call.db gold.yaml@.backfill/two-call.db --gold examples/gold/gold.yaml`,
		Args: nArgs(2, "two graphs: JOB.yaml, JOB.yaml@CHECKPOINT, EXPORT_DIR, a Bolt URI or a redis:// URI each"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, args[0], args[1]))
		},
	}
	f := cmd.Flags()
	o.registerSet(cmd, "override a key of both jobs by dotted path, `KEY=VALUE` (repeatable)")
	o.boltFlags.register(cmd)
	f.StringVar(&o.group, "group", "", "only this `GROUP` (its id as stored; a group in neither graph is an error)")
	f.StringVar(&o.json, "json", "", "write every change as JSON to `FILE`")
	f.StringVar(&o.markdown, "markdown", "", "write the totals and the most important changes with their episodes to `FILE`")
	f.StringVar(&o.html, "html", "", "write a self-contained page with the totals and, with --gold, charts of both graphs' gold scores and of their paired changes to `FILE`")
	f.StringVar(&o.gold, "gold", "", "also score both graphs against the gold `FILE` and compare the scores episode by episode (a paired bootstrap; every gold group, whatever --group)")
	f.IntVar(&o.limit, "limit", graphdiff.DefaultLimit, fmt.Sprintf("how many of the most important changes the Markdown report shows (`N`, 1 to %d)", graphdiff.MaxLimit))
	return cmd
}

// run compares graphs a and b.
func (o *diffOptions) run(ctx context.Context, out io.Writer, pathA, pathB string) int {
	if o.limit < 1 || o.limit > graphdiff.MaxLimit {
		return usageError("diff", fmt.Errorf("--limit must be from 1 to %d", graphdiff.MaxLimit))
	}
	var gold *evaluation.Gold
	if o.gold != "" {
		var err error
		if gold, err = evaluation.ReadGold(o.gold); err != nil {
			return fail(ctx, err)
		}
	}
	a, err := openGraph(ctx, pathA, o.jobFlags, o.boltFlags, false)
	if err != nil {
		return fail(ctx, err)
	}
	defer a.Close()
	b, err := openGraph(ctx, pathB, o.jobFlags, o.boltFlags, false)
	if err != nil {
		return fail(ctx, err)
	}
	defer b.Close()
	emit := func(*graphdiff.GroupDiff) error { return nil }
	var finish func(*graphdiff.Report) error
	if o.json != "" {
		w, done, err := createAtomic(o.json)
		if err != nil {
			return fail(ctx, err)
		}
		defer done(false)
		jw := graphdiff.NewJSONWriter(w)
		emit = jw.Group
		finish = func(r *graphdiff.Report) error {
			if err := jw.Close(r); err != nil {
				return err
			}
			return done(true)
		}
	}
	rep, err := graphdiff.Run(ctx, a.snap, b.snap, graphdiff.Options{Group: o.group, Limit: o.limit}, emit)
	var goldReps [2]*evaluation.Report
	if err == nil && gold != nil {
		rep.Gold, goldReps, err = o.compareGold(ctx, gold, a, b)
	}
	if err == nil && o.group != "" && rep.Groups == 0 {
		err = fmt.Errorf("group %q is in neither graph (a group id as stored: status shows them)", o.group)
	}
	if err == nil && finish != nil {
		err = finish(rep)
	}
	if err == nil && o.markdown != "" {
		var md bytes.Buffer
		rep.Markdown(&md)
		if err = safefile.WriteFile(o.markdown, md.Bytes()); err != nil {
			err = fmt.Errorf("writing diff report: %w", err)
		}
	}
	if err == nil && o.html != "" {
		err = writeHTML(o.html, diffPage(rep, goldReps))
	}
	if err != nil {
		return fail(ctx, err)
	}
	a.recordReports("diff", o.json, o.markdown, o.html)
	b.recordReports("diff", o.json, o.markdown, o.html)
	rep.Summary(out)
	return exitOK
}

// diffPage is the --html page of a diff: its totals and, with --gold, both sides' gold scores
// and their paired changes.
func diffPage(rep *graphdiff.Report, gold [2]*evaluation.Report) evaluation.HTMLPage {
	t := rep.Totals
	p := evaluation.HTMLPage{Title: "backfill diff", Gold: rep.Gold, Facts: [][2]string{
		{"A", rep.A}, {"B", rep.B},
		{"groups", fmt.Sprintf("%d of %d changed", rep.GroupsChanged, rep.Groups)},
		{"entities", fmt.Sprintf("%d added, %d removed, %d renamed, %d merged, %d split", t.EntitiesAdded, t.EntitiesRemoved,
			t.EntitiesRenamed, t.EntitiesMerged, t.EntitiesSplit)},
		{"facts", fmt.Sprintf("%d added, %d removed, %d sentences changed; valid_at %d, invalid_at %d changed; %d newly closed, %d reopened",
			t.FactsAdded, t.FactsRemoved, t.SentenceChanged, t.ValidAtChanged, t.InvalidAtChanged, t.NewlyClosed, t.Reopened)},
	}}
	for i, r := range gold {
		if r != nil {
			p.Reports = append(p.Reports, evaluation.NamedReport{Name: "AB"[i : i+1], Report: r})
		}
	}
	return p
}

// compareGold scores both graphs against the gold file and compares the scores; it returns the
// comparison and both reports.
func (o *diffOptions) compareGold(ctx context.Context, gold *evaluation.Gold, a, b *graphArg) (*evaluation.GoldChange, [2]*evaluation.Report, error) {
	var reps [2]*evaluation.Report
	for i, g := range []*graphArg{a, b} {
		var err error
		if reps[i], err = evaluation.Run(ctx, g.snap, evaluation.Options{Gold: gold, GoldFile: o.gold}); err != nil {
			return nil, reps, fmt.Errorf("graph %s: %w", "AB"[i:i+1], err)
		}
	}
	c, err := evaluation.CompareGold(reps[0].Gold, reps[1].Gold)
	return c, reps, err
}
