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
	var write func(dir string) error
	switch *format {
	case "parquet":
		write = func(dir string) error { return parquet.Export(ctx, jobs.GraphSource(j, store), dir) }
	case "cypherl":
		write = func(dir string) error { return cy.export(ctx, j, jobs.GraphSource(j, store), dir) }
	default:
		return usageError("export", fmt.Errorf("unknown --format %q", *format))
	}
	if err := replaceDir(*out, write); err != nil {
		return fail(ctx, err)
	}
	fmt.Fprintf(os.Stderr, "exported %s to %s\n", *format, *out)
	return exitOK
}
