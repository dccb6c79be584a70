package ingest

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
)

// VanishedError is the error of a run that found more of a mirror source's episodes gone from
// the source than limits.max_vanished_ratio allows: nothing was forgotten, and the run's
// staging is rolled back (Run), so the next run compares against the same store.
type VanishedError struct {
	Source   int     // index in the job's sources
	Path     string  // the source's path
	Vanished int     // episodes whose rows the source no longer holds
	Episodes int     // episodes the store held from the source before the run
	Ratio    float64 // limits.max_vanished_ratio
}

func (e *VanishedError) Error() string {
	return fmt.Sprintf("mirroring source %d (%s): %d of its %d episodes vanished from the source since the last run, "+
		"more than limits.max_vanished_ratio %g allows: nothing was forgotten and nothing staged, the store is as it was. A mistyped path or an emptied "+
		"bucket looks like this; if the rows were removed on purpose, run again with --set limits.max_vanished_ratio=1",
		e.Source, e.Path, e.Vanished, e.Episodes, e.Ratio)
}

// checkMirror makes sure the run can tell which rows of its mirror sources vanished: it stages
// its episodes with its record time, which no earlier staging may have used.
func (in *ingester) checkMirror(ctx context.Context, o Options) error {
	if !anyMirror(o) {
		return nil
	}
	used, err := in.store.StagedAt(ctx, in.now)
	if err != nil {
		return err
	}
	if used {
		return fmt.Errorf("ingesting: sources[].sync mirror needs a record time (%s) after the last run's; is the clock fixed?", in.now)
	}
	return nil
}

func anyMirror(o Options) bool {
	for _, m := range o.Mirror {
		if m {
			return true
		}
	}
	return false
}

// mirror forgets, for each mirror source, the episodes it staged earlier whose rows this run did
// not read (checkpoints.Store.Forget, one deletion per source), and returns how many. A source
// whose vanished share passes MaxVanishedRatio fails the run before anything is forgotten
// (*VanishedError); a source that had rows quarantined this run forgets nothing this run (a row
// that no longer parses was not removed on purpose), with a warning.
func (in *ingester) mirror(ctx context.Context, o Options) (int, error) {
	if !anyMirror(o) {
		return 0, nil
	}
	type found struct {
		i    int
		eps  []checkpoints.EpisodeRef
		kept int
	}
	var todo []found
	for i, m := range o.Mirror {
		if !m || i >= len(o.Sources) {
			continue
		}
		path := o.Sources[i].Path
		gone, kept, err := in.store.Vanished(ctx, path, in.now)
		if err != nil {
			return 0, err
		}
		if len(gone) == 0 {
			continue
		}
		if r := float64(len(gone)) / float64(len(gone)+kept); r > o.MaxVanishedRatio {
			return 0, &VanishedError{Source: i, Path: path, Vanished: len(gone), Episodes: len(gone) + kept, Ratio: o.MaxVanishedRatio}
		}
		if n := in.badBySource[i]; n > 0 {
			in.log.Warn("mirror source had quarantined rows this run: its vanished episodes are kept until a run reads it cleanly",
				"source", i, "path", path, "vanished", len(gone), "quarantined", n)
			continue
		}
		todo = append(todo, found{i: i, eps: gone, kept: kept})
	}
	n := 0
	for _, f := range todo {
		path := o.Sources[f.i].Path
		d, err := in.store.Forget(ctx, checkpoints.Deletion{At: in.now, Command: fmt.Sprintf("run (sources[%d].sync: mirror)", f.i),
			Selectors: []checkpoints.Selector{{Kind: checkpoints.SelectVanished, Source: path}}}, f.eps)
		if err != nil {
			return n, fmt.Errorf("forgetting the episodes that vanished from source %d (%s): %w", f.i, path, err)
		}
		n += d.Episodes
		in.log.Info("episodes whose rows vanished from a mirror source forgotten", "source", f.i, "path", path,
			"episodes", d.Episodes, "groups", d.Groups, "deletion", d.Seq)
	}
	return n, nil
}

// skipForgotten drops from the batch the rows whose episode a deletion forgot, and counts them.
func (in *ingester) skipForgotten(ctx context.Context) error {
	if len(in.batch) == 0 {
		return nil
	}
	uuids := make([]string, len(in.batch))
	for i, r := range in.batch {
		uuids[i] = r.Episode.UUID
	}
	gone, err := in.store.ForgottenAmong(ctx, uuids)
	if err != nil || len(gone) == 0 {
		return err
	}
	kept := in.batch[:0]
	for _, r := range in.batch {
		if gone[r.Episode.UUID] {
			in.forgotten++
			continue
		}
		kept = append(kept, r)
	}
	in.batch = kept
	return nil
}
