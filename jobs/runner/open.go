package runner

import (
	"context"
	"errors"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/pipeline"
)

// Store is a checkpoint store OpenStore opened, with the context its work runs under.
type Store struct {
	*checkpoints.Store
	// Ctx is cancelled, with replica.ErrLost as its cause, when another process takes a store
	// kept in object storage from this one: the work on the store stops.
	Ctx    context.Context
	cancel context.CancelCauseFunc
}

// Close closes the store (a store kept in object storage uploads its last snapshot and
// releases its lease) and returns the error of the close, or the cause of a store lost to
// another process.
func (s *Store) Close() error {
	defer s.cancel(nil)
	err := s.Store.Close()
	if cause := context.Cause(s.Ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause // the store was lost to another process
	}
	return err
}

// OpenStore opens the job's checkpoint store (o.Checkpoint, else the job's) the way every
// command that changes it does (pipeline.OpenCheckpoint): for writing, holding the store's lock or,
// for an s3:// store, its lease, taking a snapshot at once when o.Stop closes. With existing
// set, a store that does not exist yet (a local file, or a bucket without a snapshot) is an
// error wrapping fs.ErrNotExist rather than a new store: forget opens stores that way. With
// write unset the store is opened read-only (its latest snapshot for an s3:// store).
func OpenStore(ctx context.Context, j *pipeline.Job, o Options, write, existing bool) (*Store, error) {
	o.defaults(j)
	ctx, lost := context.WithCancelCause(ctx)
	store, err := pipeline.OpenCheckpoint(ctx, j, o.Checkpoint, pipeline.CheckpointOptions{Write: write, Existing: existing,
		Stop: o.Stop, OnLost: lost, Log: o.Log})
	if err != nil {
		lost(nil)
		return nil, err
	}
	return &Store{Store: store, Ctx: ctx, cancel: lost}, nil
}
