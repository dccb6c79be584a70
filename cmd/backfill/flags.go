package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/suggestions"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/loaders"
)

// jobFlags are the flags of every command that reads a job.
type jobFlags struct {
	checkpoint string
	sets       []string
	cmd        *cobra.Command // the command of the flags, named with the help pointer of a --set error
}

func (f *jobFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.checkpoint, "checkpoint", "", "checkpoint store `PATH` or s3://BUCKET/KEY (default: the job's checkpoint key)")
	f.registerSet(cmd, "override a job key by dotted path, `KEY=VALUE` (repeatable; a number indexes a list: sources.0.path=in.jsonl)")
	_ = cmd.MarkFlagFilename("checkpoint", "db")
}

// registerSet registers --set with its usage line.
func (f *jobFlags) registerSet(cmd *cobra.Command, usage string) {
	f.cmd = cmd
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, usage)
	_ = cmd.RegisterFlagCompletionFunc("set", cobra.NoFileCompletions)
}

func (f *jobFlags) load(path string) (*pipeline.Job, error) {
	j, err := pipeline.Load(path, f.sets, os.LookupEnv)
	var set *jobs.SetError
	if errors.As(err, &set) && f.cmd != nil {
		return nil, &commandUsageError{cmd: f.cmd, err: err}
	}
	if err != nil {
		return nil, err
	}
	if f.checkpoint != "" {
		j.Checkpoint = f.checkpoint
	}
	return j, nil
}

// openRun loads the job and opens the checkpoint store of a run that already happened, read-only
// (it works while a run holds the store and on read-only media; an s3:// store's latest
// snapshot); the caller closes the store.
func (f *jobFlags) openRun(ctx context.Context, path string) (*pipeline.Job, *checkpoints.Store, error) {
	return f.openRunMode(ctx, path, false)
}

// openRunMode is openRun, opening the store for writing (with its write lock) when write is set.
func (f *jobFlags) openRunMode(ctx context.Context, path string, write bool) (*pipeline.Job, *checkpoints.Store, error) {
	j, err := f.load(path)
	if err != nil {
		return nil, nil, err
	}
	store, err := pipeline.OpenCheckpoint(ctx, j, j.Checkpoint, pipeline.CheckpointOptions{Write: write})
	if err != nil && !strings.Contains(err.Error(), j.Checkpoint) {
		err = fmt.Errorf("opening checkpoint %s: %w", j.Checkpoint, err)
	}
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
		hint, err := knownGroups(ctx, store, given)
		if err != nil {
			return "", "", err
		}
		if id != given {
			return "", "", fmt.Errorf("group %q (stored as %s) is not in checkpoint %s; %s", given, id, store.Path(), hint)
		}
		return "", "", fmt.Errorf("group %q is not in checkpoint %s; %s", given, store.Path(), hint)
	}
	written, _, err = store.GroupOriginal(ctx, id)
	return id, cmp.Or(written, id), err
}

// shownGroups is how many group ids an unknown --group error lists.
const shownGroups = 10

// knownGroups says which groups the store has (the first few, and the one given most likely
// meant), for the error of a group it does not have.
func knownGroups(ctx context.Context, store *checkpoints.Store, given string) (string, error) {
	groups, err := store.Groups(ctx)
	if err != nil {
		return "", err
	}
	if len(groups) == 0 {
		return "it has no groups (has the job run?)", nil
	}
	var b strings.Builder
	if near := suggestions.Near(given, groups); near != "" {
		fmt.Fprintf(&b, "did you mean %s? ", near)
	}
	fmt.Fprintf(&b, "its groups: %s", strings.Join(groups[:min(len(groups), shownGroups)], ", "))
	if len(groups) > shownGroups {
		fmt.Fprintf(&b, ", … (%d in all)", len(groups))
	}
	return b.String(), nil
}

// registerGroup registers --group into group, completed with the groups of the job's store.
func (f *jobFlags) registerGroup(cmd *cobra.Command, group *string) {
	cmd.Flags().StringVar(group, "group", "", "only this `GROUP` (its id as the input wrote it, or as stored)")
	f.completeGroups(cmd)
}

// openGroup is openRun for a command that takes --group: it returns the store and the store's
// id of the group given ("" for none), or an error when the store has no such group.
func (f *jobFlags) openGroup(ctx context.Context, path, given string) (*checkpoints.Store, string, error) {
	_, store, id, err := f.openJobGroup(ctx, path, given)
	return store, id, err
}

// openJobGroup is openGroup that also returns the job.
func (f *jobFlags) openJobGroup(ctx context.Context, path, given string) (*pipeline.Job, *checkpoints.Store, string, error) {
	j, store, err := f.openRun(ctx, path)
	if err != nil || given == "" {
		return j, store, "", err
	}
	id, _, err := storeGroup(ctx, store, given)
	if err != nil {
		store.Close()
		return nil, nil, "", err
	}
	return j, store, id, nil
}

// completeGroups completes --group with the groups of the job's checkpoint store.
func (f *jobFlags) completeGroups(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("group", func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		_, store, err := f.openRun(cmd.Context(), args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer store.Close()
		groups, _ := store.Groups(cmd.Context())
		var out []string
		for _, g := range groups {
			if strings.HasPrefix(g, prefix) && len(out) < 1000 {
				out = append(out, g)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}
