package ingest

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// New returns the ingest stage with its options; it keeps what its last Run read (Result) for
// the report.
func New(o Options) stages.Stage { return &stage{o: o} }

type stage struct {
	o   Options
	res Result
	ran bool
}

// Step is ingest's entry of the step table.
func (s *stage) Step() stages.Step { return stages.StepOf(Stage) }

// Key is empty: ingest keeps no unit records (it upserts episodes by id, and every run reads
// the sources again).
func (s *stage) Key(stages.Env) (string, error) { return "", nil }

// Run reads every source into the store.
func (s *stage) Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	st, res, err := Run(ctx, env, s.o)
	s.res, s.ran = res, true
	return st, err
}

// Estimate reads every source into the plan's scratch store, as a run reads them into its store:
// the units are the rows read, none is ever done, and ingest asks nothing.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	st, err := s.Run(ctx, env.Env)
	if err != nil {
		return stages.Estimate{}, err
	}
	q, err := env.Store.QuarantineCount(ctx)
	if err != nil {
		return stages.Estimate{}, err
	}
	est := stages.Estimate{Stage: Stage, Units: st.Units, CallsExact: true,
		Basis: fmt.Sprintf("rows of the sources, read again by every run (%d quarantined)", q)}
	if s.res.Records.Records > 0 {
		est.Records = &s.res.Records
	}
	return est, nil
}

// Report puts the rows replaced, the rows skipped because a deletion forgot them, the episodes
// forgotten because their rows left a mirror source and the JSON records read by the last Run
// into the report.
func (s *stage) Report(_ context.Context, _ stages.Env, rep *report.Report) error {
	if !s.ran {
		return nil
	}
	rep.EpisodesReplaced, rep.Forgotten, rep.Vanished = s.res.Replaced, s.res.Forgotten, s.res.Vanished
	if s.res.Records.Records > 0 {
		rep.Records = &s.res.Records
	}
	return nil
}
