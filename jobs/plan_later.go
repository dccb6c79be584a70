package jobs

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
)

// Ratios are what a plan assumes about the graph extraction will find, per episode, to
// estimate the calls of the stages after it.
type Ratios struct {
	Source             string  `json:"source"`               // "defaults" or where they were measured
	EntitiesPerEpisode float64 `json:"entities_per_episode"` // distinct entities after resolution
	FactsPerEpisode    float64 `json:"facts_per_episode"`
	JudgedShare        float64 `json:"judged_share"`       // facts left to the judge after the cardinality rules (one judgement each)
	LongSummaryShare   float64 `json:"long_summary_share"` // entities whose facts are too long to be their own summary
	CommunitySize      float64 `json:"community_size"`     // average members of a community
	GreyPairShare      float64 `json:"grey_pair_share"`    // ambiguous pairs per entity and per fact that resolution asks the LLM about
}

// DefaultRatios are typical of chat histories. JudgedShare: the temporal stage judges only the
// facts left with candidates after the cardinality rules, 12–17% of the facts on the gold set,
// the demo and LoCoMo with the offline responder.
func DefaultRatios() Ratios {
	return Ratios{Source: "defaults", EntitiesPerEpisode: 1.2, FactsPerEpisode: 1.5, JudgedShare: 0.15,
		LongSummaryShare: 0.25, CommunitySize: 5, GreyPairShare: 0.05}
}

// RatiosFrom measures the entity and fact ratios on the graph of an earlier run; ok is false
// when the store holds no graph.
func RatiosFrom(c checkpoints.Counts) (Ratios, bool) {
	if c.Episodes == 0 || c.Entities == 0 {
		return Ratios{}, false
	}
	r := DefaultRatios()
	r.Source = fmt.Sprintf("measured on the checkpoint's graph (%d episodes)", c.Episodes)
	r.EntitiesPerEpisode = float64(c.Entities) / float64(c.Episodes)
	r.FactsPerEpisode = float64(c.Facts) / float64(c.Episodes)
	if c.Communities > 0 {
		r.CommunitySize = max(2, float64(c.Entities)/float64(c.Communities))
	}
	return r, true
}

// planLater estimates the stages after extraction, group by group, from the ratios and the
// rendered size of a typical prompt of each task.
func (p *Plan) planLater(ctx context.Context, j *Job, c *llm.Client, sizes []int) error {
	r := p.Assumptions
	ropts, copts := j.resolveOptions().WithDefaults(), j.communityOptions().WithDefaults()
	batch, resolveBatch := j.summarizeOptions().WithDefaults().BatchSize, ropts.BatchSize
	typical := map[string]int{}
	for task, in := range typicalInputs(batch, resolveBatch) {
		e, err := c.Estimate(ctx, task, in)
		if err != nil {
			return err
		}
		typical[task] = e.PromptTokens
	}
	temporal := StagePlan{Stage: "temporal", Units: p.Groups, Basis: "one judgement per fact with candidates"}
	summarize := StagePlan{Stage: "summarize", Units: p.Groups, Basis: "batches of entities with long fact lists"}
	embedding := StagePlan{Stage: "embed", Units: p.Groups, Basis: "entity names and fact sentences in batches"}
	community := StagePlan{Stage: "community", Units: p.Groups, Basis: "pairwise summary merges and a name per community"}
	resolve := StagePlan{Stage: "resolve", Units: p.Groups, Basis: "batches of ambiguous entity and fact pairs"}
	judged, summaries, merges, names, textTokens := 0, 0, 0, 0, 0
	for _, n := range sizes {
		ents := int(math.Round(float64(n) * r.EntitiesPerEpisode))
		facts := int(math.Round(float64(n) * r.FactsPerEpisode))
		if !ropts.NoLLM {
			entCalls := ceilDiv(int(math.Ceil(float64(ents)*r.GreyPairShare)), resolveBatch)
			factCalls := ceilDiv(int(math.Ceil(float64(facts)*r.GreyPairShare)), resolveBatch)
			resolve.Calls += entCalls + factCalls
			resolve.PromptTokens += entCalls*typical[wire.TaskResolveEntities] + factCalls*typical[wire.TaskDedupeFacts]
			resolve.CompletionTokens += (entCalls + factCalls) * wire.ExpectedCompletion(wire.TaskResolveEntities)
		}
		judged += int(math.Round(float64(facts) * r.JudgedShare))
		summaries += ceilDiv(int(math.Round(float64(ents)*r.LongSummaryShare)), batch)
		comms := 0
		if size := max(r.CommunitySize, float64(copts.MinSize)); float64(ents) >= size {
			comms = int(float64(ents) / size)
			merges += comms * (min(int(size), copts.MaxSummarized) - 1)
			names += comms
		}
		textTokens += ents*4 + facts*16 + comms*6
		embedding.Calls += ceilDiv(ents+facts, j.Embedder.BatchSize) + ceilDiv(comms, j.Embedder.BatchSize)
	}
	temporal.Calls = judged
	temporal.PromptTokens = judged * typical[wire.TaskJudgeFact]
	temporal.CompletionTokens = judged * wire.ExpectedCompletion(wire.TaskJudgeFact)
	summarize.Calls = summaries
	summarize.PromptTokens = summaries * typical[wire.TaskSummarize]
	summarize.CompletionTokens = summaries * wire.ExpectedCompletion(wire.TaskSummarize)
	community.Calls = merges + names
	community.PromptTokens = merges*typical[wire.TaskMergeSummaries] + names*typical[wire.TaskNameCommunity]
	community.CompletionTokens = merges*wire.ExpectedCompletion(wire.TaskMergeSummaries) + names*wire.ExpectedCompletion(wire.TaskNameCommunity)
	embedding.PromptTokens = textTokens
	embedding.CostUSD, embedding.BatchCostUSD = costs(p.EmbeddingPrice, textTokens, 0)
	if ropts.NoLLM {
		resolve.CallsExact, resolve.Basis = true, "deterministic clustering only (stages.resolve.llm: off)"
	}
	for _, st := range []*StagePlan{&resolve, &temporal, &summarize, &community} {
		p.chatCost(st)
	}
	p.Stages = append(p.Stages, resolve, temporal, summarize, embedding, community)
	p.Notes = append(p.Notes, fmt.Sprintf("calls after extract are estimates from the assumptions (%s); "+
		"they ignore the cache and count no retries", r.Source))
	return nil
}

func ceilDiv(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// typicalInputs are inputs of ordinary size for each task after extraction.
func typicalInputs(batch, resolveBatch int) map[string]any {
	at := "2024-03-01T09:30:00Z"
	fact := func(id string) wire.FactIn {
		return wire.FactIn{ID: id, Predicate: "WORKS_AT", Fact: "Alice Smith works at Acme Corp as a senior engineer.", ValidAt: &at}
	}
	facts := make([]string, 8)
	for i := range facts {
		facts[i] = "Alice Smith moved to Busan with her family to start a new job in March."
	}
	ents := make([]wire.EntityFactsIn, batch)
	for i := range ents {
		ents[i] = wire.EntityFactsIn{ID: "0b7f3c1e-6a2d-5f4b-9c8e-1d2a3b4c5d6e", Name: "Alice Smith", Facts: facts}
	}
	summary := strings.Repeat("Alice Smith is a senior engineer at Acme Corp who moved to Busan in March. ", 4)
	var cands []wire.CandidateIn
	var factsIn []wire.FactIn
	var pairs []wire.PairIn
	for i := range resolveBatch {
		a, b := fmt.Sprintf("N%d", 2*i), fmt.Sprintf("N%d", 2*i+1)
		cands = append(cands, wire.CandidateIn{ID: a, Name: "Alice Smith", Type: "Person", Facts: facts[:2]},
			wire.CandidateIn{ID: b, Name: "Alice", Type: "Person", Facts: facts[:2]})
		factsIn = append(factsIn, fact(fmt.Sprintf("F%d", 2*i)), fact(fmt.Sprintf("F%d", 2*i+1)))
		pairs = append(pairs, wire.PairIn{ID: fmt.Sprintf("P%d", i), A: a, B: b})
	}
	factPairs := make([]wire.PairIn, len(pairs))
	for i, p := range pairs {
		factPairs[i] = wire.PairIn{ID: p.ID, A: "F" + p.A[1:], B: "F" + p.B[1:]}
	}
	return map[string]any{
		wire.TaskResolveEntities: wire.ResolveInput{Entities: cands, Pairs: pairs},
		wire.TaskDedupeFacts:     wire.DedupeInput{Facts: factsIn, Pairs: factPairs},
		wire.TaskJudgeFact: wire.JudgeInput{ReferenceTime: at, New: fact(""),
			Existing: []wire.FactIn{fact("E0")}, Candidates: []wire.FactIn{fact("I0"), fact("I1"), fact("I2")}},
		wire.TaskSummarize:      wire.SummarizeInput{Entities: ents},
		wire.TaskMergeSummaries: wire.MergeInput{A: summary, B: summary},
		wire.TaskNameCommunity:  wire.NameInput{Summary: summary},
	}
}
