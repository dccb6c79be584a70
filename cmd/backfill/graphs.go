package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/snapshots"
)

// graphArg is a finished graph named on the command line: a Parquet export directory, or a job
// file with its checkpoint (the job's, --checkpoint's, or CHECKPOINT of "JOB@CHECKPOINT").
type graphArg struct {
	job   *jobs.Job          // nil for an export directory
	store *checkpoints.Store // nil for an export directory
	snap  snapshots.Snapshot
}

// openGraph opens a graph argument, its checkpoint store for writing when write is set (else
// read-only); the caller closes it.
func openGraph(ctx context.Context, arg string, jf jobFlags, write bool) (*graphArg, error) {
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		snap, err := snapshots.OpenParquet(arg)
		if err != nil {
			return nil, err
		}
		return &graphArg{snap: snap}, nil
	}
	if job, cp, ok := strings.Cut(arg, "@"); ok {
		if _, err := os.Stat(arg); err != nil { // a job path may itself contain '@'
			arg, jf.checkpoint = job, cp
		}
	}
	j, store, err := jf.openRunMode(ctx, arg, write)
	if err != nil {
		return nil, fmt.Errorf("opening graph %s: %w", arg, err)
	}
	return &graphArg{job: j, store: store, snap: snapshots.OpenStore(store, true)}, nil
}

func (g *graphArg) Close() error { return g.snap.Close() }
