package stages

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/workpool"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
)

// Unit is one piece of a stage's work.
type Unit struct {
	Key         string                                              // unit id in the store (an episode uuid or a group id)
	Group       string                                              // the unit's group: its LLM calls carry this group's text (checkpoints.ForGroup)
	Fingerprint string                                              // of the unit's current inputs
	Stored      string                                              // fingerprint on record from the last time the unit ran ("" if never)
	Run         func(ctx context.Context, fingerprint string) error // computes and commits the unit
	// Size is how many store units (episodes) the unit commits, for progress and Stats: an
	// extraction window commits its episodes' records; 0 means one.
	Size int
}

// StoreUnits is the unit's Size, at least one: what it adds to Stats and to an Observer's
// counts.
func (u Unit) StoreUnits() int { return max(u.Size, 1) }

// Producer emits a stage's units one by one; it returns emit's first error, or its own. emit
// blocks while the pool is full, so a producer that builds units lazily (a group at a time)
// keeps memory bounded by the units in flight.
type Producer func(emit func(Unit) error) error

// RunUnits runs the units whose fingerprint differs from the stored one (done), at most
// env.Concurrency at a time, and reports progress.
func RunUnits(ctx context.Context, env Env, stage string, units []Unit, done map[string]string) (Stats, error) {
	return RunStream(ctx, env, stage, len(units), func(emit func(Unit) error) error {
		for _, u := range units {
			u.Stored = done[u.Key]
			if err := emit(u); err != nil {
				return err
			}
		}
		return nil
	})
}

// MinFailedSample is how many units of a stage must have run before Env.MaxFailedRatio is
// judged (a ratio of 0 is judged at the first failure).
const MinFailedSample = 10

// RunStream runs the units a producer emits, skipping those whose Stored fingerprint equals
// their Fingerprint, at most env.Concurrency at a time; total (the number of units, or -1 if
// unknown) sizes the progress report.
//
// A unit that returns a *Failure was committed as failed: it is counted in Stats.Failed and
// logged, and the stage goes on, unless failed units pass env.MaxFailedRatio of the units run
// (judged once MinFailedSample have run), which stops the stage with an error. When env.Stop
// closes RunStream starts no new unit, waits for the units in flight (a unit whose LLM call
// was refused by the drain, pacing.ErrStopped, is left uncommitted) and returns ErrInterrupted. Any
// other unit error cancels the others and is returned.
//
// With env.Batches (batch mode) the stage runs in waves: a unit whose call queued a request or
// found it in a batch that has not ended returns batch.ErrPending and is left uncommitted; after
// the pass the queued requests are submitted (Batches.Flush), RunStream waits for the batches
// (Batches.Wait) and runs the pending units again, until none is pending. A stage needs one
// wave more than the longest chain of calls in one unit that wait on each other's answers. With
// env.NoWait it returns a *PendingError after the first pass that left units pending.
func RunStream(ctx context.Context, env Env, stage string, total int, produce Producer) (Stats, error) {
	start := time.Now()
	prog := env.Progress
	if prog == nil {
		prog = NoProgress{}
	}
	prog.Start(stage, total)
	defer prog.Done()
	var st Stats
	var err error
	if env.Batches == nil {
		st, _, err = runPass(ctx, env, stage, produce, prog, nil)
	} else {
		st, err = runWaves(ctx, env, stage, produce, prog)
	}
	st.Seconds = time.Since(start).Seconds()
	return st, err
}

// runPass runs one pass over the units a producer emits (those in only, when not nil) and
// returns the keys of the units left pending (batch.ErrPending).
func runPass(ctx context.Context, env Env, stage string, produce Producer, prog Progress, only keySet) (Stats, keySet, error) {
	var st Stats
	var mu sync.Mutex
	failed := 0
	pending := keySet{}
	var drained atomic.Bool
	if only != nil {
		ctx = batch.Replaying(ctx) // the units' earlier answers come back from the cache
	}
	p := workpool.New(ctx, env.Concurrency)
	stopped := false
	perr := produce(func(u Unit) error {
		if only != nil && !only.has(u.Key) {
			return nil
		}
		if u.Stored == u.Fingerprint {
			st.Skipped += u.StoreUnits()
			prog.Skip(u.StoreUnits())
			if env.Observer != nil {
				env.Observer.Units(ctx, stage, UnitSkipped, u.StoreUnits())
			}
			return nil
		}
		if env.Stopped() {
			stopped = true
			return ErrInterrupted
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p.Go(func(ctx context.Context) error {
			if env.Stopped() { // the stop came while this unit waited for a slot
				drained.Store(true)
				return nil
			}
			uctx, end := ctx, func(string, error) {}
			if env.Observer != nil {
				uctx, end = env.Observer.Unit(ctx, stage, u)
			}
			err := u.Run(checkpoints.ForGroup(uctx, u.Group), u.Fingerprint)
			var f *Failure
			switch {
			case err == nil:
				end(UnitDone, nil)
			case errors.As(err, &f):
				end(UnitFailed, err)
				env.Logger().Warn("unit failed: its LLM answers stayed bad; it runs again on the next run",
					"stage", stage, "unit", u.Key, "calls", f.Calls, "reason", clipText(f.Reason, 300))
			case errors.Is(err, pacing.ErrStopped):
				end(UnitDrained, nil)
				drained.Store(true)
				return nil
			case errors.Is(err, batch.ErrPending):
				end(UnitPending, nil)
				mu.Lock()
				pending.add(u.Key)
				mu.Unlock()
				return nil
			default:
				end(UnitError, err)
				return fmt.Errorf("running %s unit %s: %w", stage, u.Key, err)
			}
			prog.Add(u.StoreUnits())
			mu.Lock()
			defer mu.Unlock()
			st.Units += u.StoreUnits() // committed, done or failed: a drained or pending unit is not counted
			if f != nil {
				failed += u.StoreUnits()
			}
			return env.checkFailed(stage, failed, st.Units)
		})
		return nil
	})
	err := p.Wait()
	st.Failed = failed
	switch {
	case err != nil:
		return st, pending, err
	case stopped || drained.Load():
		return st, pending, ErrInterrupted
	case perr != nil:
		return st, pending, fmt.Errorf("listing %s units: %w", stage, perr)
	}
	return st, pending, nil
}

// ErrTooManyFailed is the error of a stage stopped by Env.MaxFailedRatio.
var ErrTooManyFailed = errors.New("too many units failed")

// checkFailed returns ErrTooManyFailed (wrapped) when failed of finished units pass the
// env's MaxFailedRatio.
func (e Env) checkFailed(stage string, failed, finished int) error {
	r := e.MaxFailedRatio
	if r == nil || failed == 0 || (*r > 0 && finished < MinFailedSample) || float64(failed) <= *r*float64(finished) {
		return nil
	}
	return fmt.Errorf("running %s: %w: %d of %d units, above limits.max_failed_ratio %g (each unit's reason is in the failed-units file)",
		stage, ErrTooManyFailed, failed, finished, *r)
}

// clipText shortens s to at most n bytes (on a rune boundary) for a log line.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
