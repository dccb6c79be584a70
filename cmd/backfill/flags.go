package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/loaders"
)

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// parse parses flags that may stand before, between or after positional arguments and returns
// the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// jobFlags are the flags of every command that reads a job.
type jobFlags struct {
	checkpoint string
	sets       multi
}

func (f *jobFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.checkpoint, "checkpoint", "", "checkpoint store path (default: the job's checkpoint)")
	fs.Var(&f.sets, "set", "override a job field by dotted path, KEY=VALUE (repeatable)")
}

func (f *jobFlags) load(path string) (*jobs.Job, error) {
	j, err := jobs.Load(path, f.sets, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	if f.checkpoint != "" {
		j.Checkpoint = f.checkpoint
	}
	return j, nil
}

func usageError(cmd string, err error) int {
	fmt.Fprintf(os.Stderr, "backfill %s: %v\n\n%s", cmd, err, usage)
	return exitUsage
}

// openRun loads the job and opens the checkpoint store of a run that already happened, read-only
// (it works while a run holds the store and on read-only media); the caller closes the store.
func (f *jobFlags) openRun(ctx context.Context, path string) (*jobs.Job, *checkpoints.Store, error) {
	return f.openRunMode(ctx, path, false)
}

// openRunMode is openRun, opening the store for writing (with its write lock) when write is set.
func (f *jobFlags) openRunMode(ctx context.Context, path string, write bool) (*jobs.Job, *checkpoints.Store, error) {
	j, err := f.load(path)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(j.Checkpoint); err != nil {
		return nil, nil, fmt.Errorf("reading checkpoint %s: %w (has the job run?)", j.Checkpoint, err)
	}
	open := checkpoints.OpenReadOnly
	if write {
		open = checkpoints.Open
	}
	store, err := open(ctx, j.Checkpoint)
	if err != nil {
		return nil, nil, err
	}
	return j, store, nil
}

// storeGroup returns the store's id of a group given as the input wrote it or as stored (a
// group id outside [A-Za-z0-9_-] is mapped, as ingest maps it), and the id as written; it
// fails when the store has no such group.
func storeGroup(ctx context.Context, store *checkpoints.Store, given string) (id, written string, err error) {
	id = loaders.MapGroupID(given)
	ok, err := store.HasGroup(ctx, id)
	if err != nil {
		return "", "", err
	}
	if !ok {
		if id != given {
			return "", "", fmt.Errorf("group %q (stored as %s) is not in checkpoint %s", given, id, store.Path())
		}
		return "", "", fmt.Errorf("group %q is not in checkpoint %s", given, store.Path())
	}
	written, _, err = store.GroupOriginal(ctx, id)
	return id, cmp.Or(written, id), err
}
