package evaluation

import (
	"math"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/graph"
)

func facts(texts ...string) []graph.Fact {
	out := make([]graph.Fact, len(texts))
	for i, t := range texts {
		out[i] = graph.Fact{UUID: string(rune('a' + i)), Fact: t}
	}
	return out
}

func all(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func TestBM25ByHand(t *testing.T) {
	// Three documents: "tea tea coffee" (length 3), "coffee" (1), "water juice" (2): N = 3,
	// average length 2.
	ix := newIndex(facts("Tea, tea & coffee.", "coffee", "water juice"), nil)
	idfTea := math.Log(1 + (3-1+0.5)/(1+0.5))    // df 1
	idfCoffee := math.Log(1 + (3-2+0.5)/(2+0.5)) // df 2
	norm := func(dl float64) float64 { return 1.2 * (1 - 0.75 + 0.75*dl/2) }
	for _, tc := range []struct {
		doc   int
		query []string
		want  float64
	}{
		{0, []string{"tea"}, idfTea * 2 * 2.2 / (2 + norm(3))},
		{0, []string{"coffee"}, idfCoffee * 1 * 2.2 / (1 + norm(3))},
		{1, []string{"coffee"}, idfCoffee * 1 * 2.2 / (1 + norm(1))},
		{0, []string{"tea", "coffee", "tea"}, 2*idfTea*2*2.2/(2+norm(3)) + idfCoffee*2.2/(1+norm(3))},
		{2, []string{"tea"}, 0},
	} {
		if got := ix.score(tc.doc, tc.query); !near(got, tc.want) {
			t.Errorf("score(doc %d, %v) = %v, want %v", tc.doc, tc.query, got, tc.want)
		}
	}
	// The short "coffee" document outranks the long one; "water juice" shares no term.
	if got := ix.bm25([]string{"coffee"}, all(3), 10); !slices.Equal(got, []int{1, 0}) {
		t.Errorf("bm25 ranking %v, want [1 0]", got)
	}
	// Disallowed facts are not ranked.
	if got := ix.bm25([]string{"coffee"}, []bool{true, false, true}, 10); !slices.Equal(got, []int{0}) {
		t.Errorf("bm25 ranking %v, want [0]", got)
	}
}

func TestRRFByHand(t *testing.T) {
	// a: 1/1 + 1/2 = 1.5; c: 1/3 + 1/1 ≈ 1.33; b: 1/2.
	if got := rrf([]int{0, 1, 2}, []int{2, 0}); !slices.Equal(got, []int{0, 2, 1}) {
		t.Errorf("rrf %v, want [0 2 1]", got)
	}
	// Equal scores keep the order of first appearance, the BM25 list first.
	if got := rrf([]int{7, 8}, []int{8, 7}); !slices.Equal(got, []int{7, 8}) {
		t.Errorf("rrf %v, want [7 8]", got)
	}
}

func TestCosineAndHybrid(t *testing.T) {
	fs := facts("north", "north east", "east", "mostly east")
	for i, v := range [][]float32{{1, 0}, {1, 1}, {0, 1}, {2, 0}} {
		fs[i].Embedding = v
	}
	ix := newIndex(fs, nil)
	// Similarities to (1, 0): 1, 0.707, 0, 1; equal scores by uuid.
	if got := ix.cosine([]float32{1, 0}, all(4), 0.6, 10); !slices.Equal(got, []int{0, 3, 1}) {
		t.Errorf("cosine %v, want [0 3 1]", got)
	}
	// The floor is strict, as Graphiti's: a similarity of exactly 1 is not above 1.
	if got := ix.cosine([]float32{1, 0}, all(4), 1, 10); len(got) != 0 {
		t.Errorf("cosine above 1: %v, want none", got)
	}
	// limit 1: BM25 for "east" ranks [2 1 3] ("east" is shortest; 1 and 3 tie, by uuid), cut to
	// 2 candidates: [2 1]; cosine [0 3]. RRF: 2 → 1, 1 → 1/2, 0 → 1, 3 → 1/2; equal scores in
	// first-seen order: 2, 0, 1, 3.
	if got := ix.hybrid([]string{"east"}, []float32{1, 0}, all(4), 0.6, 1); !slices.Equal(got, []int{2}) {
		t.Errorf("hybrid %v, want [2]", got)
	}
	// limit 2: BM25 [2 1 3], cosine [0 3 1]: 2 → 1, 0 → 1, 1 → 1/2+1/3, 3 → 1/3+1/2.
	if got := ix.hybrid([]string{"east"}, []float32{1, 0}, all(4), 0.6, 2); !slices.Equal(got, []int{2, 0}) {
		t.Errorf("hybrid top 2 %v, want [2 0]", got)
	}
}

func TestAnswerTerms(t *testing.T) {
	hay := answerTerms("  - Caroline went to the LGBTQ support group. (Date range: 2023-05-07T00:00:00Z - present)")
	for answer, want := range map[string]bool{"LGBTQ support group": true, "the support group": true, "2023": true,
		"support LGBTQ": false, "": false, "Melanie": false} {
		if got := containsRun(hay, answerTerms(answer)); got != want {
			t.Errorf("%q in the fact: %v, want %v", answer, got, want)
		}
	}
}
