package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/sinks/parquet"
)

func cmdExport(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	var jf jobFlags
	jf.register(fs)
	format := fs.String("format", "parquet", "export format: parquet | cypherl")
	out := fs.String("out", "", "output directory")
	var cy cypherlFlags
	cy.register(fs)
	pos, err := parse(fs, args)
	if err != nil || len(pos) != 1 || *out == "" {
		return usageError("export", orErr(err, "want exactly one JOB.yaml and --out DIR"))
	}
	j, store, err := jf.openRun(ctx, pos[0])
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	switch *format {
	case "parquet":
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return fail(ctx, fmt.Errorf("creating %s: %w", *out, err))
		}
		if err := parquet.Export(ctx, jobs.GraphSource(j, store), *out); err != nil {
			return fail(ctx, err)
		}
	case "cypherl":
		if err := cy.export(ctx, j, jobs.GraphSource(j, store), *out); err != nil {
			return fail(ctx, err)
		}
	default:
		return usageError("export", fmt.Errorf("unknown --format %q", *format))
	}
	fmt.Fprintf(os.Stderr, "exported %s to %s\n", *format, *out)
	return exitOK
}
