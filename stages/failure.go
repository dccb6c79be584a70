package stages

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// Failure is a unit committed as failed: some of its LLM calls got answers that stayed bad
// after the client's retries (transport.IsBadAnswer). It is what a unit's Run returns after such a
// commit, so RunStream counts it instead of stopping the stage.
type Failure struct {
	Stage, Unit string
	Calls       int    // calls whose answers stayed bad
	Reason      string // the first bad answer's error
	Raw         string // the first bad answer as the model wrote it
}

func (f *Failure) Error() string {
	more := ""
	if f.Calls > 1 {
		more = fmt.Sprintf(" (and %d more calls)", f.Calls-1)
	}
	return fmt.Sprintf("%s unit %s failed: %s%s", f.Stage, f.Unit, f.Reason, more)
}

// record is the failure as the store keeps it.
func (f *Failure) record() checkpoints.UnitFailure {
	reason := f.Reason
	if f.Calls > 1 {
		reason = fmt.Sprintf("%d calls failed; the first: %s", f.Calls, f.Reason)
	}
	return checkpoints.UnitFailure{Reason: reason, Raw: f.Raw}
}

// Degraded collects the bad answers of one unit's calls. A unit that can do without one
// answer (a group unit that makes many calls) passes each call's error through Absorb, puts a
// conservative default where the answer would have gone, and commits with Commit: the unit is
// then recorded as failed and runs again on the next run (its good answers come from the cache).
// A Degraded is safe for concurrent use; the zero value is ready.
type Degraded struct {
	mu     sync.Mutex
	calls  int
	reason string
	raw    string
}

// Absorb returns nil and counts err when it is a bad answer (transport.IsBadAnswer): the caller goes
// on with its default. Any other error (nil included) is returned as it is, and so is every
// error when d is nil.
func (d *Degraded) Absorb(err error) error {
	if d == nil || err == nil || !transport.IsBadAnswer(err) {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls++
	if d.calls == 1 {
		d.reason = err.Error()
		var v *wire.ValidationError
		if errors.As(err, &v) {
			d.raw = string(v.Raw)
		}
	}
	return nil
}

// Calls is the number of bad answers absorbed.
func (d *Degraded) Calls() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls
}

// Failure is the failure of the unit, or nil when no answer was bad.
func (d *Degraded) Failure(stage, unit string) *Failure {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.calls == 0 {
		return nil
	}
	return &Failure{Stage: stage, Unit: unit, Calls: d.calls, Reason: d.reason, Raw: d.raw}
}

// Commit writes a unit's outputs (through fn) and its record in one transaction: done when d
// absorbed no bad answer, failed otherwise (the outputs stand, with the defaults put in place of
// the bad answers, and the unit runs again on the next run). It returns the *Failure after a
// failed commit, so RunStream counts the unit as failed. d may be nil.
func Commit(ctx context.Context, env Env, stage, unit, fingerprint string, d *Degraded, fn func(*checkpoints.Tx) error) error {
	return CommitAll(ctx, env, stage, []string{unit}, fingerprint, d, fn)
}

// CommitAll is Commit for a unit whose one run commits the records of several store units with
// one fingerprint (the episodes of an extraction window): done or failed together. The
// *Failure names the first.
func CommitAll(ctx context.Context, env Env, stage string, units []string, fingerprint string, d *Degraded, fn func(*checkpoints.Tx) error) error {
	var f *Failure
	if d != nil {
		f = d.Failure(stage, units[0])
	}
	if f == nil {
		return env.Store.CommitUnits(ctx, stage, units, fingerprint, nil, fn)
	}
	rec := f.record()
	if err := env.Store.CommitUnits(ctx, stage, units, fingerprint, &rec, fn); err != nil {
		return err
	}
	return f
}
