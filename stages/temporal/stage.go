package temporal

import (
	"context"
	"math"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// New returns the temporal stage with its options.
func New(o Options) stages.Stage {
	return &stage{stages.Of[Options]{Name: Stage, Options: o.WithDefaults(), KeyOf: Options.key, RunOf: Run}}
}

type stage struct{ stages.Of[Options] }

// Estimate finds the groups done and estimates one judgement per fact the ratios expect to
// have candidates after the cardinality rules, in the others.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := stages.PlanGroups(ctx, env, s, "one judgement per fact with candidates")
	if err != nil {
		return est, err
	}
	at := stages.TypicalTime
	in := wire.JudgeInput{ReferenceTime: at, New: stages.TypicalFact(""), Existing: []wire.FactIn{stages.TypicalFact("E0")},
		Candidates: []wire.FactIn{stages.TypicalFact("I0"), stages.TypicalFact("I1"), stages.TypicalFact("I2")}}
	tokens, err := env.PromptTokens(ctx, wire.TaskJudgeFact, in)
	if err != nil {
		return stages.Estimate{}, err
	}
	for _, n := range todo {
		est.Calls += int(math.Round(float64(env.Ratios.Facts(n)) * env.Ratios.JudgedShare))
	}
	est.PromptTokens = est.Calls * tokens
	est.CompletionTokens = est.Calls * wire.ExpectedCompletion(wire.TaskJudgeFact)
	env.ChatCost(&est)
	return est, nil
}

// Report puts the counts of every group's rules and judgements into the report (absent before
// the stage ran, and when it did not finish in this run: they would be an earlier run's).
func (s *stage) Report(ctx context.Context, env stages.Env, rep *report.Report) error {
	if !rep.Finished(Stage) {
		return nil
	}
	t, ok, err := Totals(ctx, env.Store)
	if err == nil && ok {
		rep.Temporal = &t
	}
	return err
}
