package resolve

import (
	"cmp"
	"slices"
)

// Random-hyperplane LSH for the embedding pass of large groups: above lshMinNames names, only
// pairs that share one of lshBands bands of lshBits signature bits are compared. With random
// sign vectors, two vectors at cosine c agree on a bit with probability about 1-acos(c)/π, so a
// pair at cosine 0.92 is found with probability ≈ 0.997 and one at 0.8 with ≈ 0.88, while
// unrelated pairs (cosine ≈ 0) collide in about 2% of cases.
const (
	lshMinNames = 2000
	lshBands    = 20
	lshBits     = 10
)

// candidatePairs calls fn for the pairs (i<j) of unit vectors the embedding pass compares: every
// pair for small groups, the LSH candidates (each once, in order) for large ones. nil vectors are
// skipped.
func candidatePairs(unit [][]float32, fn func(i, j int)) {
	n := len(unit)
	if n < lshMinNames {
		for i := range unit {
			for j := i + 1; j < n && unit[i] != nil; j++ {
				if unit[j] != nil {
					fn(i, j)
				}
			}
		}
		return
	}
	sigs := signatures(unit)
	type entry struct {
		key uint64
		idx int
	}
	var pairs [][2]int
	entries := make([]entry, 0, n)
	for b := range lshBands {
		entries = entries[:0]
		for i, s := range sigs {
			if unit[i] != nil {
				entries = append(entries, entry{s[b], i})
			}
		}
		slices.SortFunc(entries, func(x, y entry) int { return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.idx, y.idx)) })
		for lo := 0; lo < len(entries); {
			hi := lo + 1
			for hi < len(entries) && entries[hi].key == entries[lo].key {
				hi++
			}
			for p := lo; p < hi; p++ {
				for q := p + 1; q < hi; q++ {
					pairs = append(pairs, [2]int{entries[p].idx, entries[q].idx})
				}
			}
			lo = hi
		}
	}
	slices.SortFunc(pairs, func(x, y [2]int) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) })
	for _, p := range slices.Compact(pairs) {
		fn(p[0], p[1])
	}
}

// signatures returns, per vector, its lshBands band keys of lshBits sign bits each, from random
// sign hyperplanes drawn deterministically from seedBase.
func signatures(unit [][]float32) [][lshBands]uint64 {
	dims := 0
	for _, v := range unit {
		if v != nil {
			dims = len(v)
			break
		}
	}
	planes := make([][]float32, lshBands*lshBits)
	state := uint64(seedBase) ^ 0x5eed
	for k := range planes {
		planes[k] = make([]float32, dims)
		for d := range dims {
			state += 0x9E3779B97F4A7C15
			if mix64(state)&1 == 0 {
				planes[k][d] = 1
			} else {
				planes[k][d] = -1
			}
		}
	}
	out := make([][lshBands]uint64, len(unit))
	for i, v := range unit {
		if v == nil {
			continue
		}
		for b := range lshBands {
			var key uint64
			for bit := range lshBits {
				if dot(v, planes[b*lshBits+bit]) >= 0 {
					key |= 1 << bit
				}
			}
			out[i][b] = key
		}
	}
	return out
}
