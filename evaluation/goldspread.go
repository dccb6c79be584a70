package evaluation

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tkgraph/backfill/snapshots"
)

// Resamples is how many bootstrap resamples of the gold episodes GoldReport.Spread and
// CompareGold draw. The draws come from a fixed seed, so the same scores give the same
// intervals.
const Resamples = 2000

// EpisodeScore is one graph episode's share of the gold scores, the unit the bootstrap draws:
// its gold facts, the graph facts it stands for (a matched graph fact counts under its gold
// fact's episode, any other under the first episode that states it) and the matches.
type EpisodeScore struct {
	Group string `json:"group"`
	// Episode is the episode's record key, the same in every build of the same input.
	Episode    string `json:"episode"`
	GoldFacts  int    `json:"gold_facts"`
	GraphFacts int    `json:"graph_facts"`
	Matched    int    `json:"matched"`
}

// Spread is the 95% percentile bootstrap interval of the gold scores: the episodes of the gold
// groups drawn with replacement Resamples times, the scores taken over each draw, and the
// 2.5th and 97.5th percentiles kept. It says how much the scores move with the choice of
// episodes, which is what a change of prompt, model or setting must exceed to count.
type Spread struct {
	Episodes  int        `json:"episodes"`
	Resamples int        `json:"resamples"`
	Precision [2]float64 `json:"precision"`
	Recall    [2]float64 `json:"recall"`
	F1        [2]float64 `json:"f1"`
}

// Scores are precision, recall and F1.
type Scores struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
}

// scores computes precision, recall and F1 from counts.
func scores(gold, graph, matched int) Scores {
	s := Scores{Precision: ratio(matched, graph), Recall: ratio(matched, gold)}
	if s.Precision+s.Recall > 0 {
		s.F1 = 2 * s.Precision * s.Recall / (s.Precision + s.Recall)
	}
	return s
}

// episodeScores attributes one group's gold facts, graph facts and matches to its episodes, in
// the group's episode order. goldAt maps a gold episode (index in Gold.Episodes) to the
// position of its graph episode; matchOf maps a gold fact (index in the group's gold facts) to
// the graph fact it took, -1 for none. A graph fact with no episode of the group counts under
// the first episode, so the totals always equal the group's.
func (g *Gold) episodeScores(grp *snapshots.Group, goldAt map[int]int, matchOf []int) []EpisodeScore {
	out := make([]EpisodeScore, len(grp.Episodes))
	pos := make(map[string]int, len(grp.Episodes))
	seen := map[string]int{}
	for i, e := range grp.Episodes {
		pos[e.UUID] = i
		key := e.RecordKey
		if seen[key]++; seen[key] > 1 {
			key = fmt.Sprintf("%s#%d", key, seen[key])
		}
		out[i] = EpisodeScore{Group: grp.ID, Episode: key}
	}
	if len(out) == 0 {
		return nil
	}
	taken := make([]bool, len(grp.Facts))
	for i, gf := range g.facts[grp.ID] {
		p := goldAt[gf.episode]
		out[p].GoldFacts++
		if m := matchOf[i]; m >= 0 {
			taken[m] = true
			out[p].Matched++
			out[p].GraphFacts++
		}
	}
	for i, f := range grp.Facts {
		if taken[i] {
			continue
		}
		first := -1
		for _, id := range f.Episodes {
			if p, ok := pos[id]; ok && (first < 0 || p < first) {
				first = p
			}
		}
		out[max(first, 0)].GraphFacts++
	}
	return out
}

// draws returns Resamples draws of n indices with replacement, from a fixed seed.
func draws(n int) [][]int {
	rng := rand.New(rand.NewPCG(0x601d, uint64(n)))
	out := make([][]int, Resamples)
	for r := range out {
		d := make([]int, n)
		for i := range d {
			d[i] = rng.IntN(n)
		}
		out[r] = d
	}
	return out
}

// sum adds the counts of the drawn episodes.
func sum(eps []EpisodeScore, draw []int) (gold, graph, matched int) {
	for _, i := range draw {
		gold += eps[i].GoldFacts
		graph += eps[i].GraphFacts
		matched += eps[i].Matched
	}
	return gold, graph, matched
}

// spreadOf bootstraps the scores of the episodes.
func spreadOf(eps []EpisodeScore) *Spread {
	if len(eps) == 0 {
		return nil
	}
	var p, r, f []float64
	for _, d := range draws(len(eps)) {
		s := scores(sum(eps, d))
		p, r, f = append(p, s.Precision), append(r, s.Recall), append(f, s.F1)
	}
	return &Spread{Episodes: len(eps), Resamples: Resamples, Precision: interval95(p), Recall: interval95(r), F1: interval95(f)}
}

// pairedSpread summarises the changes of one score over the paired draws: the 95% interval
// (interval95) and the shares of draws in which B is higher and lower.
func pairedSpread(deltas []float64) (interval [2]float64, higher, lower float64) {
	h, l := 0, 0
	for _, x := range deltas {
		switch {
		case x > 0:
			h++
		case x < 0:
			l++
		}
	}
	n := float64(len(deltas))
	return interval95(deltas), float64(h) / n, float64(l) / n
}

// direction classifies a paired change by its interval and shares: "the same" (no draw moved),
// "higher beyond the spread", "lower beyond the spread" (the interval leaves out 0) or
// "within the spread".
func direction(low, high, higher, lower float64) string {
	switch {
	case higher == 0 && lower == 0:
		return "the same"
	case low > 0:
		return "higher beyond the spread"
	case high < 0:
		return "lower beyond the spread"
	}
	return "within the spread"
}

// interval95 is the 2.5th and 97.5th percentile (nearest rank) of xs, which it sorts.
func interval95(xs []float64) [2]float64 {
	slices.Sort(xs)
	at := func(q float64) float64 { return xs[int(q*float64(len(xs)-1)+0.5)] }
	return [2]float64{at(0.025), at(0.975)}
}
