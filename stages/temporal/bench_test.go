package temporal

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tkgraph/backfill/stages"
)

// benchGroup is a group of n facts over 50 subjects, one fact per episode, each judged against
// up to 20 earlier facts of its subject (contradiction with half of them, duplicate of one in 20).
func benchGroup(n int) ([]stages.ResolvedFact, []Judgement) {
	r := rand.New(rand.NewPCG(1, 2))
	facts := make([]stages.ResolvedFact, n)
	judge := make([]Judgement, n)
	bySubject := map[int][]int{}
	for i := range facts {
		s := r.IntN(50)
		ref := day("2020-01-01").Add(time.Duration(i) * time.Hour)
		v := ref.AddDate(0, 0, -r.IntN(400))
		facts[i] = stages.ResolvedFact{UUID: fmt.Sprint(i), Source: fmt.Sprint("s", s), Target: fmt.Sprint("o", i), Predicate: "WORKS_AT",
			Fact: fmt.Sprint(i), Kind: "state", ValidAt: &v, Episodes: []string{fmt.Sprint("ep", i)}, ReferenceTime: ref, RecordTime: ref}
		prev := bySubject[s]
		if len(prev) > 20 {
			prev = prev[len(prev)-20:]
		}
		for _, j := range prev {
			if r.IntN(2) == 0 {
				judge[i].Contradictions = append(judge[i].Contradictions, j)
			}
		}
		if len(prev) > 0 && r.IntN(20) == 0 {
			judge[i].Duplicates = []int{prev[r.IntN(len(prev))]}
		}
		bySubject[s] = append(bySubject[s], i)
	}
	return facts, judge
}

// BenchmarkApply measures the rule walk of one large group (the judgements are given).
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		facts, judge := benchGroup(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				Apply("g", facts, judge)
			}
		})
	}
}
