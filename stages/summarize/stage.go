package summarize

import (
	"context"
	"math"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// New returns the summarize stage with its options.
func New(o Options) stages.Stage {
	return &stage{stages.Of[Options]{Name: Stage, Options: o.WithDefaults(), KeyOf: Options.key, RunOf: Run}}
}

type stage struct{ stages.Of[Options] }

// Estimate finds the groups done and estimates, in the others, batches of the entities the
// ratios expect to have fact lists too long to be their own summary.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := stages.PlanGroups(ctx, env, s, "batches of entities with long fact lists")
	if err != nil {
		return est, err
	}
	ents := make([]wire.EntityFactsIn, s.Options.BatchSize)
	for i := range ents {
		ents[i] = wire.EntityFactsIn{ID: "0b7f3c1e-6a2d-5f4b-9c8e-1d2a3b4c5d6e", Name: "Alice Smith", Facts: stages.TypicalFactLines(8)}
	}
	tokens, err := env.PromptTokens(ctx, wire.TaskSummarize, wire.SummarizeInput{Entities: ents})
	if err != nil {
		return stages.Estimate{}, err
	}
	for _, n := range todo {
		est.Calls += stages.CeilDiv(int(math.Round(float64(env.Ratios.Entities(n))*env.Ratios.LongSummaryShare)), s.Options.BatchSize)
	}
	est.PromptTokens = est.Calls * tokens
	est.CompletionTokens = est.Calls * wire.ExpectedCompletion(wire.TaskSummarize)
	env.ChatCost(&est)
	return est, nil
}
