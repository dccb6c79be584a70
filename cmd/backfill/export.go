package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/internal/termtext"
)

// exportOptions are the flags of export.
type exportOptions struct {
	jobFlags
	format, out string
	cy          cypherlFlags
}

func newExportCmd(c *cli) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export JOB.yaml --out DIR",
		Short: "Write a job's graph as Parquet tables or a CYPHERL script",
		Long: `Export writes the graph of the job's checkpoint store into --out.

--format parquet writes episodes, entities, facts, fact_versions, mentions, communities and
has_member .parquet files with the Graphiti property names. --format cypherl writes
DIR/graph.cypherl, one statement per line, for mgconsole (Memgraph, the default dialect) or
cypher-shell -f (--dialect neo4j): the uuid and group_id indexes, nodes and relationships as
UNWIND … MERGE lines of at most sink.batch_size rows and sink.batch_bytes bytes, then the other
range, vector and full-text indexes and constraints.

An export is atomic: it is written into a temporary directory beside --out that then takes its
place, so a failed export leaves the previous one as it was. --out is replaced as a whole: it
must be new, empty, or an earlier export. Export only reads the store; it records the directory
in <checkpoint>.exports.json, so that forget (and a run that forgets rows gone from a mirror
source) rewrites it without the forgotten episodes.`,
		Example: `  backfill export jobs/examples/demo.yaml --out .backfill/demo/export
  backfill export job.yaml --format cypherl --dialect neo4j --out cypher/`,
		Args:              jobArg,
		ValidArgsFunction: completeJob,
		RunE: func(cmd *cobra.Command, args []string) error {
			return done(o.run(cmd.Context(), args[0]))
		},
	}
	o.register(cmd)
	f := cmd.Flags()
	f.StringVar(&o.format, "format", "parquet", "export `FORMAT`: parquet | cypherl")
	f.StringVar(&o.out, "out", "", "output `DIR` (replaced as a whole)")
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion("parquet", "cypherl"))
	o.cy.register(cmd)
	return cmd
}

func (o *exportOptions) run(ctx context.Context, path string) int {
	if o.format != "parquet" && o.format != "cypherl" {
		return usageError("export", fmt.Errorf("unknown --format %q (want parquet or cypherl)", o.format))
	}
	j, store, err := o.openRun(ctx, path)
	if err != nil {
		return fail(ctx, err)
	}
	defer store.Close()
	var unrecorded *recordError
	if err := o.writeExport(ctx, j, store, o.out); errors.As(err, &unrecorded) {
		slog.Warn("export written but not recorded beside the store", "error", unrecorded)
	} else if err != nil {
		return fail(ctx, err)
	}
	fmt.Fprintf(os.Stderr, "exported %s to %s\n", o.format, termtext.Value(o.out))
	return exitOK
}
