package stages

import (
	"context"
	"fmt"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// Unit is one piece of a stage's work.
type Unit struct {
	Key         string                                              // unit id in the store (an episode uuid or a group id)
	Fingerprint string                                              // of the unit's current inputs
	Stored      string                                              // fingerprint on record from the last time the unit ran ("" if never)
	Run         func(ctx context.Context, fingerprint string) error // computes and commits the unit
}

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

// RunStream runs the units a producer emits, skipping those whose Stored fingerprint equals
// their Fingerprint, at most env.Concurrency at a time; total (the number of units, or -1 if
// unknown) sizes the progress report. When env.Stop closes it starts no new unit, waits for the
// units in flight and returns ErrInterrupted. The first unit error cancels the others.
func RunStream(ctx context.Context, env Env, stage string, total int, produce Producer) (Stats, error) {
	start := time.Now()
	prog := env.Progress
	if prog == nil {
		prog = NoProgress{}
	}
	prog.Start(stage, total)
	defer prog.Done()
	var st Stats
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(max(1, env.Concurrency))
	stopped := false
	perr := produce(func(u Unit) error {
		if u.Stored == u.Fingerprint {
			st.Skipped++
			prog.Add(1)
			return nil
		}
		if env.Stopped() {
			stopped = true
			return ErrInterrupted
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		st.Units++
		p.Go(func(ctx context.Context) error {
			if err := u.Run(ctx, u.Fingerprint); err != nil {
				return fmt.Errorf("running %s unit %s: %w", stage, u.Key, err)
			}
			prog.Add(1)
			return nil
		})
		return nil
	})
	err := p.Wait()
	st.Seconds = time.Since(start).Seconds()
	switch {
	case err != nil:
		return st, err
	case stopped:
		return st, ErrInterrupted
	case perr != nil:
		return st, fmt.Errorf("listing %s units: %w", stage, perr)
	}
	return st, nil
}
