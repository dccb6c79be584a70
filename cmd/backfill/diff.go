package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tkgraph/backfill/graphdiff"
)

// cmdDiff shows what changed between two graphs: two runs of a job (say, with two prompt
// versions) or Parquet exports. It exits 0 whether or not they differ, 1 on an error.
func cmdDiff(ctx context.Context, args []string) int { return runDiff(ctx, os.Stdout, args) }

func runDiff(ctx context.Context, out io.Writer, args []string) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var jf jobFlags
	fs.Var(&jf.sets, "set", "override a field of both jobs by dotted path, KEY=VALUE (repeatable)")
	group := fs.String("group", "", "only this group")
	jsonOut := fs.String("json", "", "write every change as JSON to FILE")
	mdOut := fs.String("markdown", "", "write the report with the most important changes and their episodes to FILE")
	limit := fs.Int("limit", graphdiff.DefaultLimit, "how many of the most important changes the Markdown report shows")
	pos, err := parse(fs, args)
	switch {
	case err != nil:
		return usageError("diff", err)
	case len(pos) != 2:
		return usageError("diff", errors.New("want two graphs: JOB.yaml, JOB.yaml@CHECKPOINT or EXPORT_DIR each"))
	case *limit < 1:
		return usageError("diff", errors.New("--limit must be at least 1"))
	}
	a, err := openGraph(ctx, pos[0], jf, false)
	if err != nil {
		return fail(ctx, err)
	}
	defer a.Close()
	b, err := openGraph(ctx, pos[1], jf, false)
	if err != nil {
		return fail(ctx, err)
	}
	defer b.Close()
	emit := func(*graphdiff.GroupDiff) error { return nil }
	var finish func(*graphdiff.Report) error
	if *jsonOut != "" {
		w, done, err := createAtomic(*jsonOut)
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
	rep, err := graphdiff.Run(ctx, a.snap, b.snap, graphdiff.Options{Group: *group, Limit: *limit}, emit)
	if err == nil && finish != nil {
		err = finish(rep)
	}
	if err == nil && *mdOut != "" {
		var md bytes.Buffer
		rep.Markdown(&md)
		if err = os.WriteFile(*mdOut, md.Bytes(), 0o644); err != nil {
			err = fmt.Errorf("writing diff report: %w", err)
		}
	}
	if err != nil {
		return fail(ctx, err)
	}
	rep.Summary(out)
	return exitOK
}

// createAtomic opens path+".tmp" for buffered writing; done(true) flushes it and renames it
// into place, done(false) (after a failure, or a second call) removes what is left.
func createAtomic(path string) (io.Writer, func(ok bool) error, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, nil, fmt.Errorf("creating %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	closed := false
	done := func(ok bool) error {
		if closed {
			return nil
		}
		closed = true
		if !ok {
			f.Close()
			return os.Remove(path + ".tmp")
		}
		if err := bw.Flush(); err != nil {
			f.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return os.Rename(path+".tmp", path)
	}
	return bw, done, nil
}
