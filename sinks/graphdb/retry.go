package graphdb

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/internal/retry"
)

// Retry defaults: 10 tries wait about 43 s in all (0.2 s doubling, capped at 10 s; with the
// jitter at least 21 s), longer than a database restart (Neo4j here: 11-16 s after a crash)
// or a cluster leader election.
const (
	DefaultMaxAttempts = 10
	DefaultRetryBase   = 200 * time.Millisecond
	maxBackoff         = 10 * time.Second
)

// Transient reports whether err is worth another attempt: a server error the driver classifies
// as retryable (Neo.TransientError.*, Memgraph's transaction conflicts, leader changes), any
// connectivity error including a commit whose outcome is unknown (every write of the loader is
// an idempotent MERGE, DELETE or REMOVE, so running it twice is safe), a pool timeout, or a
// network error; on FalkorDB also a server that is loading its data or busy (transientRedis).
// Cancellation and deadlines are never transient.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if transientRedis(err) {
		return true
	}
	var ce *neo4j.ConnectivityError
	if errors.As(err, &ce) {
		return true
	}
	var ne *neo4j.Neo4jError
	if errors.As(err, &ne) {
		return ne.IsRetriable()
	}
	if neo4j.IsRetryable(err) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// retrier runs a function until it succeeds, fails with a non-transient error or has used
// attempts tries, sleeping base·2^n (capped at 10 s, with ±50% jitter: retry.Spread, so the
// total wait reliably outlasts a database restart) between tries.
type retrier struct {
	attempts int
	base     time.Duration
	onRetry  func(attempt int, err error) // called before each sleep
}

func (r retrier) do(ctx context.Context, fn func(ctx context.Context) error) error {
	p := retry.Policy{Attempts: r.attempts, Base: r.base, Max: maxBackoff, Jitter: retry.Spread}
	_, err := retry.Do(ctx, p, func(err error) (bool, time.Duration) { return Transient(err), 0 },
		func(attempt int, err error, _ time.Duration) {
			if r.onRetry != nil {
				r.onRetry(attempt, err)
			}
		},
		func(ctx context.Context, _ int) error { return fn(ctx) })
	return err
}
