package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/loaders"
)

func newImportCmd(*cli) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "import locomo|longmemeval FILE --out episodes.parquet",
		Short: "Convert a LoCoMo or LongMemEval file to episode Parquet",
		Long: `Import converts the LoCoMo and LongMemEval JSON formats to episode Parquet: one episode per turn,
one group per conversation or question, the reference time from the session date. The result
reads back with the default field mapping (a source with format: parquet).

An input without a valid record writes nothing and exits 1; skipped records give exit 3.`,
		Example: `  backfill import locomo locomo10.json --out locomo.parquet
  backfill import longmemeval longmemeval_s.json --out lme.parquet`,
		Args: nArgs(2, "the format (locomo or longmemeval) and the input FILE"),
		ValidArgsFunction: func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []string{"locomo", "longmemeval"}, cobra.ShellCompDirectiveNoFileComp
			}
			return []string{"json"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(runImport(cmd.Context(), args[0], args[1], out))
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "episode Parquet `FILE` to write")
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagFilename("out", "parquet")
	return cmd
}

// runImport converts the file at in of the given format to episode Parquet at out.
func runImport(ctx context.Context, format, in, out string) int {
	imports := map[string]func(context.Context, string, func(graph.Episode) error) error{
		"locomo":      loaders.ImportLoCoMo,
		"longmemeval": loaders.ImportLongMemEval,
	}
	imp, ok := imports[format]
	if !ok {
		return usageError("import", fmt.Errorf("unknown format %q (want locomo or longmemeval)", format))
	}
	if safefile.Same(in, out) {
		return usageError("import", fmt.Errorf("--out %s is the input file %s: write the episodes to another file", out, in))
	}
	f, err := safefile.Create(out)
	if err != nil {
		return fail(ctx, err)
	}
	defer f.Abort()
	w := loaders.NewEpisodeWriter(f)
	n := 0
	groups := map[string]bool{}
	err = imp(ctx, in, func(e graph.Episode) error {
		n++
		groups[e.GroupID] = true
		return w.Write(e)
	})
	var bad *loaders.BadRowsError
	if err != nil && !errors.As(err, &bad) {
		return fail(ctx, err) // it names the file
	}
	if n == 0 {
		what := "no records"
		if bad != nil {
			what = "no valid record: " + bad.Error()
		}
		return fail(ctx, fmt.Errorf("importing %s: %s; nothing written to %s", in, what, out))
	}
	if cerr := w.Close(); cerr != nil {
		return fail(ctx, fmt.Errorf("writing %s: %w", out, cerr))
	}
	if cerr := f.Commit(); cerr != nil {
		return fail(ctx, cerr)
	}
	fmt.Fprintf(os.Stderr, "imported %d episodes in %d groups to %s\n", n, len(groups), termtext.Value(out))
	if bad != nil {
		fmt.Fprintf(os.Stderr, "backfill import: skipped %s\n", termtext.Message(bad.Error()))
		return exitPartial
	}
	return exitOK
}
