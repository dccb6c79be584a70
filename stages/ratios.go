package stages

import (
	"fmt"
	"math"

	"github.com/tkgraph/backfill/checkpoints"
)

// Ratios are what a plan assumes about the graph extraction will find, per episode, to
// estimate the calls of the stages after it.
type Ratios struct {
	Source             string  `json:"source"`               // "defaults…" or where they were measured, and why
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

// Entities is the entities expected of a group of n episodes.
func (r Ratios) Entities(n int) int { return int(math.Round(float64(n) * r.EntitiesPerEpisode)) }

// Facts is the facts expected of a group of n episodes.
func (r Ratios) Facts(n int) int { return int(math.Round(float64(n) * r.FactsPerEpisode)) }

// Communities is the communities expected among ents entities when none is smaller than
// minSize, and their size.
func (r Ratios) Communities(ents, minSize int) (n int, size float64) {
	size = max(r.CommunitySize, float64(minSize))
	if float64(ents) < size {
		return 0, size
	}
	return int(float64(ents) / size), size
}
