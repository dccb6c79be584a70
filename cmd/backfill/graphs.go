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

// Environment variables with the credentials of a Bolt GRAPH (eval, diff).
const (
	envGraphUser     = "BACKFILL_GRAPH_USER"
	envGraphPassword = "BACKFILL_GRAPH_PASSWORD"
)

// graphArg is a finished graph named on the command line: a Parquet export directory, a Bolt URI
// (a graph Graphiti or backfill wrote into Neo4j), or a job file with its checkpoint (the job's,
// --checkpoint's, or CHECKPOINT of "JOB@CHECKPOINT") or with a Bolt URI ("JOB@bolt://…").
type graphArg struct {
	job   *pipeline.Job      // nil for an export directory or a bare Bolt URI
	store *checkpoints.Store // nil unless the graph is a checkpoint
	snap  snapshots.Snapshot
}

// boltFlags are the flags of a command that reads Bolt graphs.
type boltFlags struct{ database string }

func (f *boltFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.database, "database", "", "the Neo4j `NAME` of the database a Bolt GRAPH is read from (default: the server's default database)")
	_ = cmd.RegisterFlagCompletionFunc("database", cobra.NoFileCompletions)
}

// openGraph opens a graph argument, its checkpoint store for writing when write is set (else
// read-only); the caller closes it. A job with a Bolt graph embeds with its embedder but caches
// nothing (there is no checkpoint store to cache in).
func openGraph(ctx context.Context, arg string, jf jobFlags, bf boltFlags, write bool) (*graphArg, error) {
	if snapshots.IsBoltURI(arg) {
		snap, err := openBolt(ctx, arg, bf)
		if err != nil {
			return nil, err
		}
		return &graphArg{snap: snap}, nil
	}
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		snap, err := snapshots.OpenParquet(arg)
		if err != nil {
			return nil, err
		}
		return &graphArg{snap: snap}, nil
	}
	if job, loc, ok := strings.Cut(arg, "@"); ok {
		if _, err := os.Stat(arg); err != nil { // a job path may itself contain '@'
			if snapshots.IsBoltURI(loc) {
				return openJobBolt(ctx, job, loc, jf, bf)
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

func openJobBolt(ctx context.Context, path, uri string, jf jobFlags, bf boltFlags) (*graphArg, error) {
	j, err := jf.load(path)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", path, err)
	}
	j.LLM.Cache = "off"
	snap, err := openBolt(ctx, uri, bf)
	if err != nil {
		return nil, err
	}
	return &graphArg{job: j, snap: snap}, nil
}

func openBolt(ctx context.Context, uri string, bf boltFlags) (snapshots.Snapshot, error) {
	return snapshots.OpenBolt(ctx, snapshots.BoltOptions{URI: uri, User: os.Getenv(envGraphUser),
		Password: os.Getenv(envGraphPassword), Database: bf.database})
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
