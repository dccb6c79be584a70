package stages

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/sourcegraph/conc/pool"
	"github.com/tkgraph/backfill/internal/workpool"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
)

// Pool runs the calls of one unit in parallel, at most n at a time, the first error cancelling
// the others, except pacing.ErrStopped: a call refused because the run drains does not cancel its
// siblings in flight (they finish and their answers are cached); Wait then returns
// pacing.ErrStopped, so the unit is left uncommitted and runs again on the next run. Likewise
// batch.ErrPending (a request waiting in a provider batch) lets the siblings queue theirs, and
// Wait returns it, so every request of the unit's wave goes into the same batches.
type Pool struct {
	p       *pool.ContextPool
	stopped atomic.Bool
	pending atomic.Bool
}

// NewPool returns a pool of at most n goroutines (n < 1 means 1).
func NewPool(ctx context.Context, n int) *Pool {
	return &Pool{p: workpool.New(ctx, n)}
}

// Go runs f in the pool.
func (p *Pool) Go(f func(ctx context.Context) error) {
	p.p.Go(func(ctx context.Context) error {
		err := f(ctx)
		switch {
		case errors.Is(err, pacing.ErrStopped):
			p.stopped.Store(true)
			return nil
		case errors.Is(err, batch.ErrPending):
			p.pending.Store(true)
			return nil
		}
		return err
	})
}

// Wait waits for every call and returns the first error, else pacing.ErrStopped when a call was
// refused by the drain, else batch.ErrPending when a call waits for a batch, else nil.
func (p *Pool) Wait() error {
	if err := p.p.Wait(); err != nil {
		return err
	}
	if p.stopped.Load() {
		return pacing.ErrStopped
	}
	if p.pending.Load() {
		return batch.ErrPending
	}
	return nil
}
