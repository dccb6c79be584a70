package community

import (
	"context"
	"slices"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// New returns the community stage with its options.
func New(o StageOptions) stages.Stage {
	return &stage{stages.Of[StageOptions]{Name: Stage, Options: o.WithDefaults(), KeyOf: StageOptions.key, RunOf: Run}}
}

type stage struct{ stages.Of[StageOptions] }

// Estimate finds the groups done and estimates, in the others, the communities the ratios
// expect: merges of their members' summaries (MaxSummarized at most, MergeFanIn a call), a name
// each and the name's embedding.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := stages.PlanGroups(ctx, env, s, "summary merges and a name per community")
	if err != nil {
		return est, err
	}
	summary := stages.TypicalSummary()
	fanIn := s.Options.MergeFanIn
	mergeTokens, err := env.PromptTokens(ctx, wire.TaskMergeSummaries, wire.MergeInput{Summaries: slices.Repeat([]string{summary}, fanIn)})
	if err != nil {
		return stages.Estimate{}, err
	}
	nameTokens, err := env.PromptTokens(ctx, wire.TaskNameCommunity, wire.NameInput{Summary: summary})
	if err != nil {
		return stages.Estimate{}, err
	}
	merges, names := 0, 0
	for _, n := range todo {
		comms, size := env.Ratios.Communities(env.Ratios.Entities(n), s.Options.MinSize)
		merges += comms * stages.CeilDiv(min(int(size), s.Options.MaxSummarized)-1, fanIn-1)
		names += comms
		est.Embeddings.Calls += stages.CeilDiv(comms, env.EmbedBatch)
		est.Embeddings.Tokens += comms * 6
	}
	est.Calls = merges + names
	est.PromptTokens = merges*mergeTokens + names*nameTokens
	est.CompletionTokens = merges*wire.ExpectedCompletion(wire.TaskMergeSummaries) + names*wire.ExpectedCompletion(wire.TaskNameCommunity)
	env.ChatCost(&est)
	return est, nil
}

// Report puts the communities of each group into the report (not when the stage did not finish
// in this run: they would be an earlier run's).
func (s *stage) Report(ctx context.Context, env stages.Env, rep *report.Report) error {
	if !rep.Finished(Stage) {
		return nil
	}
	var err error
	rep.CommunitiesByGroup, err = CountByGroup(ctx, env.Store)
	return err
}
