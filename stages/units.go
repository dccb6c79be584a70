package stages

import (
	"context"
	"fmt"
	"time"

	"github.com/sourcegraph/conc/pool"
)

// Unit is one piece of a stage's work.
type Unit struct {
	Key         string // unit id in the store (an episode uuid or a group id)
	Fingerprint string
	Run         func(ctx context.Context, fingerprint string) error // computes and commits the unit
}

// RunUnits runs the units whose fingerprint differs from the stored one, at most env.Concurrency
// at a time, and reports progress. done holds the stored fingerprints of the stage. When env.Stop
// closes it starts no new unit, waits for the units in flight and returns ErrInterrupted.
func RunUnits(ctx context.Context, env Env, stage string, units []Unit, done map[string]string) (Stats, error) {
	start := time.Now()
	prog := env.Progress
	if prog == nil {
		prog = NoProgress{}
	}
	var st Stats
	var todo []Unit
	for _, u := range units {
		if done[u.Key] == u.Fingerprint {
			st.Skipped++
			continue
		}
		todo = append(todo, u)
	}
	st.Units = len(todo)
	prog.Start(stage, len(todo))
	defer prog.Done()
	n := env.Concurrency
	if n < 1 {
		n = 1
	}
	p := pool.New().WithContext(ctx).WithCancelOnError().WithFirstError().WithMaxGoroutines(n)
	stopped := false
	for _, u := range todo {
		if env.Stopped() {
			stopped = true
			break
		}
		p.Go(func(ctx context.Context) error {
			if err := u.Run(ctx, u.Fingerprint); err != nil {
				return fmt.Errorf("running %s unit %s: %w", stage, u.Key, err)
			}
			prog.Add(1)
			return nil
		})
	}
	err := p.Wait()
	st.Seconds = time.Since(start).Seconds()
	if err == nil && stopped {
		err = ErrInterrupted
	}
	return st, err
}
