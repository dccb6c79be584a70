package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/loaders"
)

func cmdImport(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	out := fs.String("out", "", "episode Parquet file to write")
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 2 || *out == "" {
		return usageError("import", orErr(err, "want locomo|longmemeval FILE --out X.parquet"))
	}
	imports := map[string]func(context.Context, string, func(graph.Episode) error) error{
		"locomo":      loaders.ImportLoCoMo,
		"longmemeval": loaders.ImportLongMemEval,
	}
	imp, ok := imports[pos[0]]
	if !ok {
		return usageError("import", fmt.Errorf("unknown format %q (want locomo or longmemeval)", pos[0]))
	}
	tmp := *out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fail(ctx, fmt.Errorf("creating %s: %w", tmp, err))
	}
	defer os.Remove(tmp)
	w := loaders.NewEpisodeWriter(f)
	n := 0
	groups := map[string]bool{}
	err = imp(ctx, pos[1], func(e graph.Episode) error {
		n++
		groups[e.GroupID] = true
		return w.Write(e)
	})
	var bad *loaders.BadRowsError
	if err != nil && !errors.As(err, &bad) {
		f.Close()
		return fail(ctx, fmt.Errorf("importing %s: %w", pos[1], err))
	}
	if n == 0 {
		f.Close()
		what := "no records"
		if bad != nil {
			what = "no valid record: " + bad.Error()
		}
		return fail(ctx, fmt.Errorf("importing %s: %s; nothing written to %s", pos[1], what, *out))
	}
	if cerr := w.Close(); cerr != nil {
		f.Close()
		return fail(ctx, cerr)
	}
	if cerr := f.Close(); cerr != nil {
		return fail(ctx, fmt.Errorf("writing %s: %w", tmp, cerr))
	}
	if rerr := os.Rename(tmp, *out); rerr != nil {
		return fail(ctx, fmt.Errorf("writing %s: %w", *out, rerr))
	}
	fmt.Fprintf(os.Stderr, "imported %d episodes in %d groups to %s\n", n, len(groups), *out)
	if bad != nil {
		fmt.Fprintf(os.Stderr, "backfill import: skipped %v\n", bad)
		return exitPartial
	}
	return exitOK
}
