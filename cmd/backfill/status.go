package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/tkgraph/backfill/jobs"
)

func cmdStatus(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 {
		return usageError("status", orErr(err, "want exactly one JOB.yaml"))
	}
	j, store, err := jf.openRun(ctx, pos[0])
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	c, err := store.Count(ctx)
	if err != nil {
		return fail(ctx, err)
	}
	groups, err := store.Groups(ctx)
	if err != nil {
		return fail(ctx, err)
	}
	counts, err := store.StageCounts(ctx)
	if err != nil {
		return fail(ctx, err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "checkpoint\t%s\n", j.Checkpoint)
	fmt.Fprintf(tw, "episodes\t%d in %d groups\n", c.Episodes, len(groups))
	fmt.Fprintf(tw, "quarantined\t%d\n", c.Quarantined)
	fmt.Fprintf(tw, "\nstage\tunits done\tfailed\tof\n")
	done, failed := map[string]int{}, map[string]int{}
	for _, s := range counts {
		done[s.Stage], failed[s.Stage] = s.Units, s.Failed
	}
	for _, s := range jobs.StageOrder[1:] {
		if s == jobs.LoadStage && j.Sink.Kind == "sqlite" {
			continue
		}
		total := len(groups)
		if s == "extract" {
			total = c.Episodes
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\n", s, done[s], failed[s], total)
	}
	fmt.Fprintf(tw, "\nentities\t%d\nfacts\t%d (%d invalidated)\nmentions\t%d\ncommunities\t%d\n",
		c.Entities, c.Facts, c.FactsInvalidated, c.Mentions, c.Communities)
	tw.Flush()
	return exitOK
}
