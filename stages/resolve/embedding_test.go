package resolve

import (
	"math/rand/v2"
	"testing"
)

// TestCandidatePairs checks the embedding pass's pair enumeration: all pairs for small groups;
// for large ones, every planted near-duplicate (cosine ≥ 0.95) among few random pairs, each once.
func TestCandidatePairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	randVec := func() []float32 {
		v := make([]float32, 64)
		for d := range v {
			v[d] = float32(rng.NormFloat64())
		}
		return v
	}
	small := normalized([][]float32{randVec(), nil, randVec(), randVec()})
	var got [][2]int
	candidatePairs(small, func(i, j int) { got = append(got, [2]int{i, j}) })
	if want := [][2]int{{0, 2}, {0, 3}, {2, 3}}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("small group pairs %v, want %v", got, want)
	}

	var vecs [][]float32
	planted := map[[2]int]bool{}
	for len(vecs) < lshMinNames+500 {
		v := randVec()
		vecs = append(vecs, v)
		if rng.IntN(10) == 0 {
			w := make([]float32, len(v))
			for d := range v {
				w[d] = v[d] + float32(0.2*rng.NormFloat64())
			}
			planted[[2]int{len(vecs) - 1, len(vecs)}] = true
			vecs = append(vecs, w)
		}
	}
	unit := normalized(vecs)
	seen := map[[2]int]bool{}
	candidatePairs(unit, func(i, j int) {
		p := [2]int{i, j}
		if i >= j || seen[p] {
			t.Fatalf("pair %v out of order or repeated", p)
		}
		seen[p] = true
	})
	for p := range planted {
		if dot(unit[p[0]], unit[p[1]]) >= 0.95 && !seen[p] {
			t.Errorf("near-duplicate %v (cosine %.3f) not a candidate", p, dot(unit[p[0]], unit[p[1]]))
		}
	}
	n := len(unit)
	if all := n * (n - 1) / 2; len(seen) > all/10 {
		t.Errorf("%d candidates of %d pairs: the LSH does not prune", len(seen), all)
	}
}
