// Package retry runs an operation until it succeeds, fails with an error its caller's
// classifier does not retry, or has used its attempts, pausing between tries by exponential
// backoff with jitter, or for as long as the error asks (a server's Retry-After). It is the one
// retry loop of the project: the LLM and embedding requests (transport.Poster) and the graph
// database loader's transactions (sinks/graphdb) use it, each with its own classifier and policy.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Jitter is how a backoff pause is drawn from its nominal duration d.
type Jitter int

const (
	// Full draws the pause uniformly from [0, d] ("full jitter"): clients that failed together
	// spread out the most, at the price of an unpredictable total wait.
	Full Jitter = iota
	// Spread draws the pause uniformly from [d/2, 3d/2]: the total wait stays within half of its
	// nominal value either way, for callers that must outlast an outage of a known length.
	Spread
)

// Policy bounds the tries of one operation.
type Policy struct {
	Attempts int           // tries in all, the first included; less than 1 means 1
	Base     time.Duration // nominal pause before the second try, doubled before each later one
	Max      time.Duration // cap of the nominal pause; 0 means no cap
	Jitter   Jitter
	// MaxWait caps a pause the error asks for (Classifier's after); 0 means no cap.
	MaxWait time.Duration
}

// Classifier decides whether err is worth another try and, if the error says so, how long to
// wait first (0: the policy's backoff).
type Classifier func(err error) (retry bool, after time.Duration)

// Backoff is the pause before try number attempt+1, after attempt failed tries (attempt ≥ 1).
func (p Policy) Backoff(attempt int) time.Duration {
	d := p.Base << min(max(attempt-1, 0), 30)
	if d <= 0 || p.Max > 0 && d > p.Max {
		d = p.Max
	}
	if d <= 0 {
		return 0
	}
	if p.Jitter == Spread {
		return d/2 + rand.N(d+1)
	}
	return rand.N(d + 1)
}

// Do calls fn (with the number of the try, from 1) until it returns nil, an error classify does
// not retry, or p.Attempts tries have failed, and returns the number of tries made and the last
// error. Before each pause it calls onRetry (if not nil) with the failed try's number, its error
// and the pause. A cancelled ctx ends the pause: Do then returns an error that wraps ctx's error
// (and quotes the failed try's without wrapping it, so it no longer classifies as retryable).
// fn itself sees ctx.
func Do(ctx context.Context, p Policy, classify Classifier, onRetry func(attempt int, err error, wait time.Duration),
	fn func(ctx context.Context, attempt int) error) (int, error) {
	attempts := max(p.Attempts, 1)
	for attempt := 1; ; attempt++ {
		err := fn(ctx, attempt)
		if err == nil {
			return attempt, nil
		}
		retry, after := classify(err)
		if !retry || attempt >= attempts || ctx.Err() != nil {
			return attempt, err
		}
		wait := p.Backoff(attempt)
		if after > 0 {
			wait = after
			if p.MaxWait > 0 {
				wait = min(wait, p.MaxWait)
			}
		}
		if onRetry != nil {
			onRetry(attempt, err, wait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt, fmt.Errorf("%w while waiting to retry (last try: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}
