// Package workpool is the project's one bounded worker pool: a sourcegraph/conc context pool
// that runs at most n tasks at once, cancels the context of the others at the first error and
// returns that first error from Wait. Stages, the embedder and every other fan-out use it.
package workpool

import (
	"context"

	"github.com/sourcegraph/conc/pool"
)

// New returns a pool bounded to n goroutines (at least 1) whose tasks get a context derived from
// ctx.
func New(ctx context.Context, n int) *pool.ContextPool {
	return pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(max(1, n))
}
