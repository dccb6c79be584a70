package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/snapshots"
)

// Environment variables with the credentials of a graph database GRAPH (eval, diff): a Bolt
// server's user and password, a FalkorDB server's Redis AUTH user and password.
const (
	envGraphUser     = "BACKFILL_GRAPH_USER"
	envGraphPassword = "BACKFILL_GRAPH_PASSWORD"
)

// graphArg is a finished graph named on the command line: a Parquet export directory, a Bolt URI
// (a graph Graphiti or backfill wrote into Neo4j or Memgraph), a redis:// URI (the graphs
// Graphiti or backfill wrote into FalkorDB), or a job file with its checkpoint (the job's,
// --checkpoint's, or CHECKPOINT of "JOB@CHECKPOINT") or with one of the others ("JOB@bolt://…",
// "JOB@redis://…", "JOB@EXPORT_DIR": the job's embedder for eval --dataset).
type graphArg struct {
	job   *pipeline.Job      // nil for an export directory or a bare graph URI
	store *checkpoints.Store // nil unless the graph is a checkpoint
	snap  snapshots.Snapshot
}

// boltFlags are the flags of a command that reads graph databases.
type boltFlags struct{ database string }

func (f *boltFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.database, "database", "", "the Neo4j or Memgraph `NAME` of the database a Bolt GRAPH is read from (default: the server's default database)")
	_ = cmd.RegisterFlagCompletionFunc("database", cobra.NoFileCompletions)
}

// openGraph opens a graph argument, its checkpoint store for writing when write is set (else
// read-only); the caller closes it. A job with a graph other than a checkpoint embeds with its
// embedder but caches nothing (there is no checkpoint store to cache in).
func openGraph(ctx context.Context, arg string, jf jobFlags, bf boltFlags, write bool) (*graphArg, error) {
	if open, ok := graphOpener(arg, bf); ok {
		snap, err := open(ctx)
		if err != nil {
			return nil, err
		}
		return &graphArg{snap: snap}, nil
	}
	if job, loc, ok := strings.Cut(arg, "@"); ok {
		if _, err := os.Stat(arg); err != nil { // a job path may itself contain '@'
			if open, ok := graphOpener(loc, bf); ok {
				return openJobGraph(ctx, job, open, jf)
			}
			arg, jf.checkpoint = job, loc
		}
	}
	j, store, err := jf.openRunMode(ctx, arg, write)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", arg, err)
	}
	return &graphArg{job: j, store: store, snap: snapshots.OpenStore(store, true)}, nil
}

// graphOpener opens loc when it is a graph of its own, not a checkpoint: a Bolt URI (read from
// --database's database), a FalkorDB URI or an export directory.
func graphOpener(loc string, bf boltFlags) (func(context.Context) (snapshots.Snapshot, error), bool) {
	user, password := os.Getenv(envGraphUser), os.Getenv(envGraphPassword)
	switch {
	case snapshots.IsBoltURI(loc):
		return func(ctx context.Context) (snapshots.Snapshot, error) {
			return snapshots.OpenBolt(ctx, snapshots.BoltOptions{URI: loc, User: user, Password: password, Database: bf.database})
		}, true
	case snapshots.IsFalkorDBURI(loc):
		return func(ctx context.Context) (snapshots.Snapshot, error) {
			return snapshots.OpenFalkorDB(ctx, snapshots.FalkorDBOptions{URI: loc, User: user, Password: password})
		}, true
	}
	if st, err := os.Stat(loc); err == nil && st.IsDir() {
		return func(context.Context) (snapshots.Snapshot, error) { return snapshots.OpenParquet(loc) }, true
	}
	return nil, false
}

// openJobGraph opens the job at path with the graph open opens.
func openJobGraph(ctx context.Context, path string, open func(context.Context) (snapshots.Snapshot, error), jf jobFlags) (*graphArg, error) {
	j, err := jf.load(path)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", path, err)
	}
	j.LLM.Cache = "off"
	snap, err := open(ctx)
	if err != nil {
		return nil, err
	}
	return &graphArg{job: j, snap: snap}, nil
}

func (g *graphArg) Close() error { return g.snap.Close() }

// recordReports records the report files a command wrote from a graph kept in a job's
// checkpoint store, so that forget checks them (recordFile); "" names no file.
func (g *graphArg) recordReports(command string, files ...string) {
	if g.store == nil {
		return
	}
	for _, f := range files {
		if f != "" {
			recordFile(g.job, outputRecord{Kind: outputReport, File: f, Command: command})
		}
	}
}
