package stages

import "context"

// Outcomes of a unit as an Observer sees them.
const (
	UnitDone    = "done"    // committed
	UnitFailed  = "failed"  // committed as failed: its LLM answers stayed bad (*Failure)
	UnitSkipped = "skipped" // not run: its fingerprint was on record
	UnitPending = "pending" // left uncommitted: its requests wait for a provider batch
	UnitDrained = "drained" // left uncommitted: the run drains (Env.Stop)
	UnitError   = "error"   // failed, and failed the stage
)

// Observer watches the units of a run's stages; package telemetry implements it (a span per
// unit run, the units counted by stage and outcome). Env.Observer nil watches nothing.
type Observer interface {
	// Unit is called before a unit runs. The context it returns is the unit's (the calls the
	// unit makes are its children); end is called once, with the unit's outcome (Unit…) and
	// its error.
	Unit(ctx context.Context, stage string, u Unit) (context.Context, func(outcome string, err error))
	// Units counts n units of stage that ended with outcome without a run of their own here:
	// the units skipped, and the groups the load stage recorded.
	Units(ctx context.Context, stage, outcome string, n int)
}
