package summarize

import (
	"context"
	"math"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// New returns the summarize stage with its options.
func New(o Options) stages.Stage { return &stage{o: o.WithDefaults()} }

type stage struct{ o Options }

// Step is summarize's entry of the step table.
func (s *stage) Step() stages.Step { return stages.StepOf(Stage) }

// Key is the stage's part of its unit fingerprints.
func (s *stage) Key(env stages.Env) (string, error) { return s.o.key(env) }

// Run summarizes the entities of every group whose facts changed.
func (s *stage) Run(ctx context.Context, env stages.Env) (stages.Stats, error) {
	return Run(ctx, env, s.o)
}

// Estimate finds the groups done and estimates, in the others, batches of the entities the
// ratios expect to have fact lists too long to be their own summary.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := stages.PlanGroups(ctx, env, s, "batches of entities with long fact lists")
	if err != nil {
		return est, err
	}
	ents := make([]wire.EntityFactsIn, s.o.BatchSize)
	for i := range ents {
		ents[i] = wire.EntityFactsIn{ID: "0b7f3c1e-6a2d-5f4b-9c8e-1d2a3b4c5d6e", Name: "Alice Smith", Facts: stages.TypicalFactLines(8)}
	}
	tokens, err := env.PromptTokens(ctx, wire.TaskSummarize, wire.SummarizeInput{Entities: ents})
	if err != nil {
		return stages.Estimate{}, err
	}
	for _, n := range todo {
		est.Calls += stages.CeilDiv(int(math.Round(float64(env.Ratios.Entities(n))*env.Ratios.LongSummaryShare)), s.o.BatchSize)
	}
	est.PromptTokens = est.Calls * tokens
	est.CompletionTokens = est.Calls * wire.ExpectedCompletion(wire.TaskSummarize)
	env.ChatCost(&est)
	return est, nil
}
