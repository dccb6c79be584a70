package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/cypherl"
	"github.com/tkgraph/backfill/sinks/graphdb"
)

// CypherlFile is the name of the script `export --format cypherl` writes into --out.
const CypherlFile = "graph.cypherl"

// cypherlFlags are the export flags only the cypherl format reads.
type cypherlFlags struct {
	dialect    string
	analytical bool
}

func (f *cypherlFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.dialect, "dialect", "", "cypherl `DIALECT`: memgraph | neo4j | falkordb (default: the job's sink.kind when it is one of them, else memgraph); falkordb writes redis-cli lines, GRAPH.QUERY per group graph")
	fs.BoolVar(&f.analytical, "analytical", false, "cypherl for memgraph: load in IN_MEMORY_ANALYTICAL mode and snapshot (default: the job's sink.analytical)")
	_ = cmd.RegisterFlagCompletionFunc("dialect", fixedCompletion("memgraph", "neo4j", "falkordb"))
}

// export writes src as out/graph.cypherl (through a temporary file, so a failed export leaves no
// partial script), with the job's batch size and embedding dimensions.
func (f *cypherlFlags) export(ctx context.Context, j *pipeline.Job, src sinks.Source, out string) error {
	name := f.dialect
	if name == "" {
		name = string(cypher.Memgraph)
		if j.Sink.Kind == string(cypher.Neo4j) || j.Sink.Kind == string(cypher.FalkorDB) {
			name = j.Sink.Kind
		}
	}
	d, err := cypher.ParseDialect(name)
	if err != nil {
		return err
	}
	bulk := f.analytical || j.Sink.Analytical
	if bulk && d != cypher.Memgraph {
		return fmt.Errorf("exporting cypherl: --analytical needs the memgraph dialect")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", out, err)
	}
	path := filepath.Join(out, CypherlFile)
	// An unset sink.batch_bytes is the Bolt loader's default for the job's sink, as a load of the
	// job writes it (cypherl's own default for a job of no graph sink).
	batchBytes := j.Sink.BatchBytes
	if batchBytes == 0 && j.Sink.GraphSink() {
		batchBytes = graphdb.DefaultBatchBytesFor(cypher.Dialect(j.Sink.Kind), cypher.IndexMode(j.Sink.Indexes))
	}
	return safefile.Write(path, func(w io.Writer) error {
		return cypherl.ExportWith(ctx, src, w, cypherl.Options{Dialect: d, BatchSize: j.Sink.BatchSize, BatchBytes: batchBytes,
			VectorDims: j.Embedder.Dimensions, Bulk: bulk})
	})
}
