package evaluation

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestGoldEpisodeScoresByHand: the tiny graph's gold counts per episode. A matched graph fact
// counts under its gold fact's episode, any other under the first episode that states it.
//
//	e1: Alice WORKS_AT Kakao (gold) matched by f1                  gold 1, graph 1, matched 1
//	e2: alice EMPLOYED_BY Naver matched by f2; f5 a duplicate      gold 1, graph 2, matched 1
//	e3: LIVES_IN Pangyo matched by f3; KNOWS Bob missed            gold 2, graph 1, matched 1
//	e4: f4 Carol LIKES tea, an extra                               gold 0, graph 1, matched 0
func TestGoldEpisodeScoresByHand(t *testing.T) {
	g := tinyRun(t).Gold
	want := []EpisodeScore{
		{Group: "s", Episode: "s/D1:1", GoldFacts: 1, GraphFacts: 1, Matched: 1},
		{Group: "s", Episode: "s/D1:2", GoldFacts: 1, GraphFacts: 2, Matched: 1},
		{Group: "s", Episode: "s/D1:3", GoldFacts: 2, GraphFacts: 1, Matched: 1},
		{Group: "s", Episode: "s/D1:4", GoldFacts: 0, GraphFacts: 1, Matched: 0},
	}
	if !reflect.DeepEqual(g.PerEpisode, want) {
		t.Errorf("per episode\n got %+v\nwant %+v", g.PerEpisode, want)
	}
	sp := g.Spread
	if sp == nil || sp.Episodes != 4 || sp.Resamples != Resamples {
		t.Fatalf("spread %+v", sp)
	}
	for name, iv := range map[string][2]float64{"precision": sp.Precision, "recall": sp.Recall, "F1": sp.F1} {
		point := map[string]float64{"precision": g.Precision, "recall": g.Recall, "F1": g.F1}[name]
		if !(iv[0] < point && point < iv[1]) {
			t.Errorf("%s interval %v does not hold the score %v strictly inside", name, iv, point)
		}
	}
	var md strings.Builder
	g.Markdown(&md)
	if want := fmt.Sprintf("F1 %.3f–%.3f", sp.F1[0], sp.F1[1]); !strings.Contains(md.String(), want) {
		t.Errorf("markdown without %q:\n%s", want, md.String())
	}
}

// same makes n episodes of one group with the same counts.
func same(n, gold, graph, matched int) []EpisodeScore {
	out := make([]EpisodeScore, n)
	for i := range out {
		out[i] = EpisodeScore{Group: "g", Episode: fmt.Sprintf("e%02d", i), GoldFacts: gold, GraphFacts: graph, Matched: matched}
	}
	return out
}

// report totals the episodes into a gold report.
func report(eps []EpisodeScore) *GoldReport {
	r := &GoldReport{PerEpisode: eps}
	for _, e := range eps {
		r.GoldFacts += e.GoldFacts
		r.GraphFacts += e.GraphFacts
		r.Matched += e.Matched
	}
	r.finish()
	return r
}

func TestSpread(t *testing.T) {
	// Episodes that all score alike leave nothing to the choice of episodes.
	if sp := report(same(30, 2, 4, 1)).Spread; sp.F1 != [2]float64{1.0 / 3, 1.0 / 3} || sp.Precision != [2]float64{0.25, 0.25} {
		t.Errorf("equal episodes: spread %+v, want zero width at P 0.25, F1 1/3", sp)
	}
	// Unequal episodes: an interval around the score, the same every time, and narrower with
	// more episodes of the same mix.
	mix := func(n int) []EpisodeScore {
		eps := same(n, 2, 2, 0)
		for i := 0; i < n; i += 2 {
			eps[i].Matched = 2
		}
		return eps
	}
	a, b := report(mix(20)), report(mix(20))
	if !reflect.DeepEqual(a.Spread, b.Spread) {
		t.Errorf("two spreads of the same counts differ: %+v, %+v", a.Spread, b.Spread)
	}
	if !(a.Spread.F1[0] < a.F1 && a.F1 < a.Spread.F1[1]) {
		t.Errorf("F1 %v outside its interval %v", a.F1, a.Spread.F1)
	}
	big := report(mix(200)).Spread
	if wide, narrow := a.Spread.F1[1]-a.Spread.F1[0], big.F1[1]-big.F1[0]; !(narrow < wide/2) {
		t.Errorf("interval width %v with 200 episodes, %v with 20: want under half", narrow, wide)
	}
	if report(nil).Spread != nil {
		t.Error("no episodes: want no spread")
	}
}

func TestCompareGold(t *testing.T) {
	reversed := func(eps []EpisodeScore) []EpisodeScore {
		out := slices.Clone(eps)
		slices.Reverse(out)
		return out
	}
	uneven := same(20, 2, 3, 1)
	for i := range uneven {
		uneven[i].Matched = i % 3
	}
	oneBetter := slices.Clone(uneven)
	oneBetter[1].Matched++
	for _, tc := range []struct {
		name           string
		a, b           []EpisodeScore
		verdict        string
		higher, lower  bool // some draws with B higher / lower
		zeroWidth      bool
		changeF1Sign   int
		bAllHigherDraw bool
	}{
		// The same counts in another order pair episode by episode: no change in any draw
		// (paired by position, the reversed list would move in most draws).
		{name: "same episodes reordered", a: uneven, b: reversed(uneven), verdict: "equals A's in every one", zeroWidth: true},
		{name: "one more match in one episode", a: uneven, b: oneBetter, verdict: "within", higher: true, changeF1Sign: 1},
		{name: "every episode better", a: same(20, 2, 2, 1), b: same(20, 2, 2, 2), verdict: "higher beyond", higher: true,
			changeF1Sign: 1, bAllHigherDraw: true},
		{name: "every episode worse", a: same(20, 2, 2, 2), b: same(20, 2, 2, 1), verdict: "lower beyond", lower: true, changeF1Sign: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareGold(report(tc.a), report(tc.b))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(c.Verdict(), tc.verdict) {
				t.Errorf("verdict %q, want %q", c.Verdict(), tc.verdict)
			}
			if (c.BHigher > 0) != tc.higher || (c.BLower > 0) != tc.lower {
				t.Errorf("B higher in %v, lower in %v of the draws", c.BHigher, c.BLower)
			}
			if zero := c.Low == c.High && c.Low == (Scores{}); zero != tc.zeroWidth {
				t.Errorf("interval %+v … %+v, zero width %v", c.Low, c.High, tc.zeroWidth)
			}
			if sign := cmpSign(c.Change.F1); sign != tc.changeF1Sign {
				t.Errorf("change of F1 %v, want sign %d", c.Change.F1, tc.changeF1Sign)
			}
			if !(c.Low.F1 <= c.Change.F1 && c.Change.F1 <= c.High.F1) {
				t.Errorf("change %v outside its interval %v … %v", c.Change.F1, c.Low.F1, c.High.F1)
			}
			if tc.bAllHigherDraw && c.BHigher != 1 {
				t.Errorf("B higher in %v of the draws, want all", c.BHigher)
			}
		})
	}
}

func cmpSign(x float64) int {
	switch {
	case x > 1e-12:
		return 1
	case x < -1e-12:
		return -1
	}
	return 0
}

func TestCompareGoldRejects(t *testing.T) {
	base := same(5, 2, 2, 1)
	renamed := slices.Clone(base)
	renamed[3].Episode = "other"
	moreGold := slices.Clone(base)
	moreGold[0].GoldFacts, moreGold[1].GoldFacts = 3, 1 // same total, another episode
	fewer := same(4, 2, 2, 1)
	fewer[0].GoldFacts = 4 // same total, an episode less
	for name, b := range map[string]*GoldReport{
		"another episode":              report(renamed),
		"fewer episodes":               report(fewer),
		"gold facts moved":             report(moreGold),
		"another gold file":            report(same(5, 3, 2, 1)),
		"no episode counts (old JSON)": {GoldFacts: 10, GraphFacts: 10, Matched: 5},
	} {
		if _, err := CompareGold(report(base), b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		hits, n int
		want    [2]float64
	}{
		{0, 10, [2]float64{0, 0.2775}},      // z²/(n+z²)
		{10, 10, [2]float64{0.7225, 1}},     // its mirror
		{7, 20, [2]float64{0.1812, 0.5671}}, // textbook value
		{50, 100, [2]float64{0.4038, 0.5962}},
		{0, 0, [2]float64{0, 0}},
	} {
		got := wilson(tc.hits, tc.n)
		if math.Abs(got[0]-tc.want[0]) > 5e-5 || math.Abs(got[1]-tc.want[1]) > 5e-5 {
			t.Errorf("wilson(%d, %d) = %v, want %v", tc.hits, tc.n, got, tc.want)
		}
	}
}

// TestRetrievalIntervals: every recall of the tiny graph's retrieval lies in its Wilson
// interval, and the Markdown prints those of "all".
func TestRetrievalIntervals(t *testing.T) {
	rt := tinyRun(t).Retrieval
	for _, c := range append(rt.Categories, rt.Apart...) {
		for i := range rt.Ks {
			for _, pair := range []struct {
				x  float64
				iv [2]float64
			}{{c.EvidenceRecall[i], c.EvidenceRecall95[i]}, {c.AnswerRecall[i], c.AnswerRecall95[i]}} {
				if pair.x < pair.iv[0] || pair.x > pair.iv[1] {
					t.Errorf("%s @%d: recall %v outside %v", c.Category, rt.Ks[i], pair.x, pair.iv)
				}
			}
		}
	}
	all := rt.Categories[len(rt.Categories)-1]
	apart := 0
	for _, c := range rt.Apart {
		apart += c.Questions
	}
	if len(rt.PerQuestion) != all.Questions+apart {
		t.Errorf("%d per-question results, want %d scored and %d apart", len(rt.PerQuestion), all.Questions, apart)
	}
	var md strings.Builder
	rt.Markdown(&md)
	if want := fmt.Sprintf("evidence R@%d %.3f–%.3f", rt.Ks[0], all.EvidenceRecall95[0][0], all.EvidenceRecall95[0][1]); !strings.Contains(md.String(), want) {
		t.Errorf("markdown without %q:\n%s", want, md.String())
	}
}
