package resolve

import (
	"context"
	"fmt"
	"math"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// New returns the resolve stage with its options.
func New(o Options) stages.Stage {
	return &stage{stages.Of[Options]{Name: Stage, Options: o.WithDefaults(), KeyOf: Options.key, RunOf: Run}}
}

type stage struct{ stages.Of[Options] }

// Estimate finds the groups done (their extractions done and their fingerprint on record) and
// estimates the calls of the others: batches of the ambiguous entity and fact pairs the ratios
// expect.
func (s *stage) Estimate(ctx context.Context, env stages.PlanEnv) (stages.Estimate, error) {
	todo, est, err := s.plan(ctx, env)
	if err != nil {
		return est, err
	}
	if s.Options.NoLLM {
		est.CallsExact, est.Basis = true, "deterministic clustering only (stages.resolve.llm: off)"
		return est, nil
	}
	ents, facts := typicalInputs(s.Options.BatchSize)
	entTokens, err := env.PromptTokens(ctx, wire.TaskResolveEntities, ents)
	if err != nil {
		return est, err
	}
	factTokens, err := env.PromptTokens(ctx, wire.TaskDedupeFacts, facts)
	if err != nil {
		return est, err
	}
	r := env.Ratios
	for _, n := range todo {
		entCalls := stages.CeilDiv(int(math.Ceil(float64(r.Entities(n))*r.GreyPairShare)), s.Options.BatchSize)
		factCalls := stages.CeilDiv(int(math.Ceil(float64(r.Facts(n))*r.GreyPairShare)), s.Options.BatchSize)
		est.Calls += entCalls + factCalls
		est.PromptTokens += entCalls*entTokens + factCalls*factTokens
		est.CompletionTokens += (entCalls + factCalls) * wire.ExpectedCompletion(wire.TaskResolveEntities)
	}
	est.CallsExact = len(todo) == 0
	env.ChatCost(&est)
	return est, nil
}

// plan sorts the groups into done and to do (the episodes of each); a group is done when its
// extractions are (env.Done) and its fingerprint is on record.
func (s *stage) plan(ctx context.Context, env stages.PlanEnv) ([]int, stages.Estimate, error) {
	est := stages.Estimate{Stage: Stage, Basis: "batches of ambiguous entity and fact pairs"}
	key, err := s.Options.key(env.Env)
	if err != nil {
		return nil, est, err
	}
	groups, err := env.Store.Groups(ctx)
	if err != nil {
		return nil, est, err
	}
	stored, err := env.Stored(ctx, Stage)
	if err != nil {
		return nil, est, err
	}
	var todo []int
	for _, g := range groups {
		eps, err := env.Store.GroupEpisodes(ctx, g)
		if err != nil {
			return nil, est, err
		}
		if env.Done.Has(stages.Extract, g) {
			up, err := env.Prev.EpisodeFingerprints(ctx, stages.Extract, g)
			if err != nil {
				return nil, est, err
			}
			if fp, err := groupFingerprint(env.Env, key, eps, up); err == nil && fp == stored[g] {
				est.Done++
				env.Done.Add(Stage, g)
				if g == env.Group {
					est.GroupDone = 1
				}
				continue
			}
		}
		todo = append(todo, len(eps))
	}
	est.Units = len(groups)
	return todo, est, nil
}

// typicalInputs are a resolve_entities and a dedupe_facts input of batch pairs each.
func typicalInputs(batch int) (wire.ResolveInput, wire.DedupeInput) {
	facts := stages.TypicalFactLines(2)
	var ents wire.ResolveInput
	var dedupe wire.DedupeInput
	for i := range batch {
		a, b := fmt.Sprintf("N%d", 2*i), fmt.Sprintf("N%d", 2*i+1)
		ents.Entities = append(ents.Entities, wire.CandidateIn{ID: a, Name: "Alice Smith", Type: "Person", Facts: facts},
			wire.CandidateIn{ID: b, Name: "Alice", Type: "Person", Facts: facts})
		ents.Pairs = append(ents.Pairs, wire.PairIn{ID: fmt.Sprintf("P%d", i), A: a, B: b})
		dedupe.Facts = append(dedupe.Facts, stages.TypicalFact(fmt.Sprintf("F%d", 2*i)), stages.TypicalFact(fmt.Sprintf("F%d", 2*i+1)))
		dedupe.Pairs = append(dedupe.Pairs, wire.PairIn{ID: fmt.Sprintf("P%d", i), A: fmt.Sprintf("F%d", 2*i), B: fmt.Sprintf("F%d", 2*i+1)})
	}
	return ents, dedupe
}
