package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/timeline"
)

// timelineOptions are the flags of timeline.
type timelineOptions struct {
	jobFlags
	entity, group, out, knownAt string
}

func newTimelineCmd(c *cli) *cobra.Command {
	var o timelineOptions
	cmd := &cobra.Command{
		Use:   "timeline JOB.yaml --entity NAME",
		Short: "Draw an entity's facts on a time axis as one self-contained HTML file",
		Long: `Timeline writes the facts of an entity as one HTML file that needs nothing else (inline SVG, no
network, no external script): one row per fact, a bar from valid_at to invalid_at (an unknown
start fades in, an open end ends in an arrow), a dot where the system learned the fact
(created_at) and a cross where it learned of its end (expired_at), the sentence and its dates on
hover, and a "known at" slider over the record times of the fact version log: each row is drawn
as the system knew it then, and what it did not know yet is greyed out.

--entity matches names as query --entity does (case- and particle-insensitive; no match is an
error naming the closest entities). Without --group, each group with a matching entity gets its
own chart. --known-at sets where the slider starts (default now). Timeline only reads the store.`,
		Example: `  backfill timeline jobs/examples/demo.yaml --group alice --entity Alice --out alice.html
  backfill timeline jobs/examples/demo.yaml --group jihoon --entity 지훈 --known-at 2024-03-01 --out jihoon.html`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), c.out, c.now(), args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.entity, "entity", "", "the entity's `NAME` (case- and particle-insensitive)")
	f.StringVar(&o.out, "out", "", "HTML `FILE` to write (default: beside the checkpoint, <checkpoint>.timeline-NAME.html; - for standard output)")
	f.StringVar(&o.knownAt, "known-at", "", "where the known-at slider starts, a record `TIME` (as query takes it; default now)")
	_ = cmd.MarkFlagRequired("entity")
	_ = cmd.MarkFlagFilename("out", "html")
	o.registerGroup(cmd, &o.group)
	return cmd
}

// run writes the timeline of o.entity in the job at path.
func (o *timelineOptions) run(ctx context.Context, stdout io.Writer, now time.Time, path string) int {
	k, err := parseWhen(o.knownAt, now)
	if err != nil {
		return usageError("timeline", err)
	}
	j, store, g, err := o.openJobGroup(ctx, path, o.group)
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	page, n, err := timelinePage(ctx, store, g, o.entity, k)
	if err != nil {
		return fail(ctx, err)
	}
	out := o.out
	if out == "" {
		out = defaultTimelineOut(j.Checkpoint, o.entity)
	}
	if out == "-" {
		err = timeline.Write(stdout, page)
	} else {
		err = writeAtomic(out, func(w io.Writer) error { return timeline.Write(w, page) })
	}
	if err != nil {
		return fail(ctx, err)
	}
	if out != "-" {
		rec := outputRecord{Kind: outputTimeline, File: out, Entity: o.entity, Group: g}
		if o.knownAt != "" && o.knownAt != "now" {
			rec.KnownAt = &k
		}
		if rec.Deletion, err = store.LastPurged(ctx); err == nil {
			recordFile(j, rec)
		}
		fmt.Fprintf(os.Stderr, "wrote the timeline of %s (%d facts, %d %s) to %s\n", termtext.Value(o.entity), n, len(page.Sections),
			map[bool]string{true: "group", false: "groups"}[len(page.Sections) == 1], termtext.Value(out))
	}
	return exitOK
}

// defaultTimelineOut is where timeline writes without --out: beside the checkpoint store, named
// after it as its quarantine and failed-units files are (<checkpoint>.timeline-NAME.html), never
// the working directory (a clone's root), and two jobs' timelines of one name stay apart. A
// store kept in object storage has no directory here: its page goes into the working directory,
// named after the key's last part.
func defaultTimelineOut(checkpoint, entity string) string {
	name := strings.NewReplacer("/", "_", "\\", "_", " ", "_", string(filepath.Separator), "_").Replace(entity)
	if loc, remote, err := replica.Parse(checkpoint); err == nil && remote {
		checkpoint = path.Base(loc.Key)
	}
	return checkpoint + ".timeline-" + name + ".html"
}

// timelinePage gathers the facts of the entities named entity in group ("" = every group), with
// their version logs and endpoint names, one section per group; n is the number of facts.
func timelinePage(ctx context.Context, store *checkpoints.Store, group, entity string, knownAt time.Time) (timeline.Page, int, error) {
	page := timeline.Page{Entity: entity, KnownAt: knownAt}
	keep, err := matchEntities(ctx, store, group, entity)
	if err != nil {
		return page, 0, err
	}
	var facts []timeline.Fact
	index := map[string]int{} // fact uuid → position in facts
	names := map[string]string{}
	if err := store.EachFact(ctx, group, func(f graph.Fact) error {
		if keep[f.SourceUUID] || keep[f.TargetUUID] {
			index[f.UUID] = len(facts)
			facts = append(facts, timeline.Fact{Fact: f})
			names[f.SourceUUID], names[f.TargetUUID] = "", ""
		}
		return nil
	}); err != nil {
		return page, 0, err
	}
	if err := store.EachFactVersion(ctx, group, func(v graph.FactVersion) error {
		if i, ok := index[v.FactUUID]; ok {
			facts[i].Versions = append(facts[i].Versions, v)
		}
		return nil
	}); err != nil {
		return page, 0, err
	}
	if err := store.EachEntity(ctx, group, func(e graph.Entity) error {
		if _, ok := names[e.UUID]; ok {
			names[e.UUID] = e.Name
		}
		return nil
	}); err != nil {
		return page, 0, err
	}
	sections := map[string]int{}
	for _, f := range facts {
		f.Source, f.Target = names[f.SourceUUID], names[f.TargetUUID]
		i, ok := sections[f.GroupID]
		if !ok {
			i = len(page.Sections)
			sections[f.GroupID] = i
			page.Sections = append(page.Sections, timeline.Section{Group: f.GroupID})
		}
		page.Sections[i].Facts = append(page.Sections[i].Facts, f)
	}
	return page, len(facts), nil
}
