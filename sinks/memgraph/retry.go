package memgraph

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
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
// network error. Cancellation and deadlines are never transient.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
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
// attempts tries, sleeping base·2^n (capped at 10 s, with ±50% jitter) between tries.
type retrier struct {
	attempts int
	base     time.Duration
	onRetry  func(attempt int, err error) // called before each sleep
}

func (r retrier) do(ctx context.Context, fn func(ctx context.Context) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		if err = fn(ctx); err == nil || !Transient(err) || attempt >= r.attempts || ctx.Err() != nil {
			return err
		}
		if r.onRetry != nil {
			r.onRetry(attempt, err)
		}
		d := min(r.base<<(attempt-1), maxBackoff)
		d = d/2 + rand.N(d+1) // jitter in [d/2, 3d/2]
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
