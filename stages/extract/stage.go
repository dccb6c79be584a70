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
	return &stage{stages.Of[Options]{Name: Stage, Options: o, KeyOf: Options.key, RunOf: Run}}
}

type stage struct{ stages.Of[Options] }

// Report puts the units this run committed, by how they were planned, and those left waiting
// for a provider batch into the report.
func (s *stage) Report(_ context.Context, _ stages.Env, rep *report.Report) error {
	rep.ExtractUnits = s.Options.Counts.Stage(Stage)
	rep.ExtractWindows = s.Options.Counts.Stage(windowsKind)[Asked]
	rep.ExtractWaiting = rep.Stages[Stage].Pending
	return nil
}
