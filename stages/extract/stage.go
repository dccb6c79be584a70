package extract

import (
	"context"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// New returns the extract stage with its options; it counts its units by how they were planned
// and reports them (report.ExtractUnits).
func New(o Options) stages.Stage {
	o = o.WithDefaults()
	o.Counts = stages.NewTally()
	return &stage{o: o}
}

type stage struct{ o Options }

// Step is extract's entry of the step table.
func (s *stage) Step() stages.Step { return stages.StepOf(Stage) }

// Key is the stage's part of its unit fingerprints.
func (s *stage) Key(env stages.Env) (string, error) { return s.o.key(env) }

// Run extracts every episode whose inputs changed.
func (s *stage) Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	return Run(ctx, env, s.o)
}

// Report puts the units this run ran, by how they were planned, into the report.
func (s *stage) Report(_ context.Context, _ stages.Env, rep *report.Report) error {
	rep.ExtractUnits = s.o.Counts.Stage(Stage)
	return nil
}
