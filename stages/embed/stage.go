package embed

import (
	"context"

	"github.com/tkgraph/backfill/stages"
)

// New returns the embed stage (it has no options: the embedder is the env's).
func New() stages.Stage { return stage{} }

type stage struct{}

// Step is embed's entry of the step table.
func (stage) Step() stages.Step { return stages.StepOf(Stage) }

// Key is the stage's part of its unit fingerprints.
func (stage) Key(env stages.Env) (string, error) { return key(env) }

// Run embeds the names and facts of every group whose graph changed.
func (stage) Run(ctx context.Context, env stages.Env) (stages.Stats, error) { return Run(ctx, env) }

// Estimate finds the groups done and estimates, in the others, the requests that embed the
// entity names and fact sentences the ratios expect, in batches of env.EmbedBatch texts (about
// 4 tokens a name, 16 a sentence).
func (s stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := stages.PlanGroups(ctx, env, s, "entity names and fact sentences in batches")
	if err != nil {
		return est, err
	}
	for _, n := range todo {
		ents, facts := env.Ratios.Entities(n), env.Ratios.Facts(n)
		est.Embeddings.Calls += stages.CeilDiv(ents+facts, env.EmbedBatch)
		est.Embeddings.Tokens += ents*4 + facts*16
	}
	return est, nil
}
