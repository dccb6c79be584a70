package stages

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
)

// PendingError ends a stage whose units wait for provider batches (Env.NoWait). errors.Is(err,
// batch.ErrPending) is true of it.
type PendingError struct {
	Stage string
	Units int
}

func (e *PendingError) Error() string {
	return fmt.Sprintf("running %s: %d units wait for provider batches", e.Stage, e.Units)
}

func (e *PendingError) Unwrap() error { return batch.ErrPending }

// runWaves runs passes over the units until none is pending (see RunStream); each later pass
// runs only the units the one before left pending.
func runWaves(ctx context.Context, env Env, stage string, produce Producer, prog Progress) (Stats, error) {
	var st Stats
	var only keySet
	err := func() error {
		for {
			s, pending, err := runPass(ctx, env, stage, produce, prog, only)
			st.Waves++
			if only == nil {
				st.Skipped = s.Skipped
			}
			st.Units += s.Units // the units committed in this pass; the pending ones run again
			st.Failed += s.Failed
			if ferr := env.Batches.Flush(ctx); err == nil {
				err = ferr
			}
			if err != nil {
				return err
			}
			if len(pending) == 0 {
				return nil
			}
			if env.NoWait {
				st.Pending = len(pending)
				return &PendingError{Stage: stage, Units: len(pending)}
			}
			env.Logger().Info("waiting for provider batches", "stage", stage, "wave", st.Waves, "pending_units", len(pending))
			n, err := env.Batches.Wait(ctx, env.Stop)
			if errors.Is(err, pacing.ErrStopped) {
				return ErrInterrupted
			}
			if err != nil {
				return fmt.Errorf("waiting for the batches of %s: %w", stage, err)
			}
			if n == 0 {
				return fmt.Errorf("running %s: %d units wait for provider batches, but no batch holds their requests", stage, len(pending))
			}
			only = pending
		}
	}()
	if rerr := env.Batches.Release(context.WithoutCancel(ctx)); err == nil {
		err = rerr
	}
	return st, err
}

// keySet is a set of unit keys held as 64-bit hashes (about 16 bytes a key, whatever its
// length), so the units a wave leaves pending cost little memory even at millions. A collision
// (about n²/2⁶⁵ for n keys) would only run one more unit in the next wave, its answers from the
// cache.
type keySet map[uint64]struct{}

var keySeed = maphash.MakeSeed()

func (s keySet) add(key string) { s[maphash.String(keySeed, key)] = struct{}{} }

func (s keySet) has(key string) bool {
	_, ok := s[maphash.String(keySeed, key)]
	return ok
}
