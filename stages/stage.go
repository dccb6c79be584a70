package stages

import (
	"context"

	"github.com/tkgraph/backfill/report"
)

// Stage is one stage of a run with everything it owns: its step (name, upstream, unit), its
// options (with their defaults applied and validated when the stage is built), the key its
// options put into its unit fingerprints (Key, the one recipe), its estimate for a plan, and
// Run. Each stage package builds its Stage with New(Options); the jobs side builds the list of a
// job in one place (jobs/pipeline), and run, plan and status walk that list in Steps order.
type Stage interface {
	// Step is the stage's entry of the step table.
	Step() Step
	// Key is the stage's part of every fingerprint of its units under env: its options and the
	// versions of the LLM tasks and models it asks, by the one recipe Key.
	Key(env Env) (string, error)
	// Run runs the units whose fingerprint changed and commits each with its fingerprint.
	Run(ctx context.Context, env Env) (Stats, error)
	// Estimate predicts what Run would do, calling nothing: the units, which of them are done
	// (their fingerprint on record), and the calls and tokens of the others.
	Estimate(ctx context.Context, env PlanEnv) (Estimate, error)
}

// Reporter is a stage with a section of its own in the run report beside its Stats (ingest:
// rows replaced and JSON records; extract: units by how they were planned; temporal: the
// judge's counts; community: communities per group; load: what the sink wrote). The runner
// calls Report for every stage of the list once the run ends, also when it stopped early (the
// stage reports what its last Run did, or what is in the store; a section summed over the store
// is left out when the stage did not finish in this run, report.Report.Finished).
type Reporter interface {
	Report(ctx context.Context, env Env, rep *report.Report) error
}

// Of is the part of a Stage that only wires its options: its step (by name), its key and Run as
// functions of its options. A stage package embeds it and adds Estimate (and Report).
type Of[O any] struct {
	Name    string
	Options O
	KeyOf   func(O, Env) (string, error)
	RunOf   func(context.Context, Env, O) (Stats, error)
}

// Step is the stage's entry of the step table.
func (s *Of[O]) Step() Step { return StepOf(s.Name) }

// Key is the stage's part of its unit fingerprints.
func (s *Of[O]) Key(env Env) (string, error) { return s.KeyOf(s.Options, env) }

// Run runs the stage with its options.
func (s *Of[O]) Run(ctx context.Context, env Env) (Stats, error) { return s.RunOf(ctx, env, s.Options) }
