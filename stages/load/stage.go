package load

import (
	"context"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
)

// New returns the load stage with its options; it keeps what its last Run wrote for the report.
func New(o Options) stages.Stage { return &stage{o: o} }

type stage struct {
	o   Options
	res *graphdb.Result
}

// Step is load's entry of the step table.
func (s *stage) Step() stages.Step { return stages.StepOf(Stage) }

// Key is the stage's part of its unit fingerprints.
func (s *stage) Key(stages.Env) (string, error) { return s.o.key(), nil }

// Run loads the groups whose load fingerprint changed.
func (s *stage) Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	st, res, err := Run(ctx, env, s.o)
	s.res = res
	return st, err
}

// Estimate finds the groups done (every group is to do with Reload); a group loaded before that
// has no episode left is to do as well (the load removes it); loading asks nothing.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	_, est, err := stages.PlanGroups(ctx, env, s, "writes the groups to do into the sink")
	if err != nil {
		return est, err
	}
	est.CallsExact = true
	if s.o.Reload {
		est.Done, est.GroupDone, est.Basis = 0, 0, "writes every group into the sink (sink.reload)"
	}
	stored, err := env.Stored(ctx, Stage)
	if err != nil {
		return est, err
	}
	groups, err := env.Store.Groups(ctx)
	est.Units += len(emptiedGroups(groups, stored))
	return est, err
}

// Report puts what the last Run wrote into the report (nothing when it loaded nothing).
func (s *stage) Report(_ context.Context, _ stages.Env, rep *report.Report) error {
	if s.res != nil {
		l := report.Load(*s.res)
		rep.Load = &l
	}
	return nil
}
