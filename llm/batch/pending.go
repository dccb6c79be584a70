package batch

import (
	"context"
	"errors"
)

// ErrPending is returned by a call whose request waits in a provider batch (llm.mode: batch):
// the request is recorded in the checkpoint store and its answer is not there yet. The caller's
// unit is left uncommitted and runs again once the batch has ended (a later wave, or a later
// run), when the answer comes from the cache.
var ErrPending = errors.New("pending: the request waits in a provider batch")

// replayKey marks a context whose calls read back answers of earlier waves.
type replayKey struct{}

// Replaying marks ctx as a later wave of a unit in batch mode: the answers its calls find in
// the cache were delivered for earlier waves of the same unit, so they are not counted as cache
// hits (stages.RunStream marks every wave after the first).
func Replaying(ctx context.Context) context.Context { return context.WithValue(ctx, replayKey{}, true) }

// IsReplay reports whether ctx was marked by Replaying.
func IsReplay(ctx context.Context) bool { return ctx.Value(replayKey{}) != nil }
