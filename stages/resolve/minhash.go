package resolve

import (
	"cmp"
	"math"
	"slices"
)

// DefaultSimilarity is the Jaccard threshold of SimilarPairs when it is given a threshold ≤ 0.
const DefaultSimilarity = 0.9

// MinHash and LSH banding parameters: 128 hash functions in 32 bands of 4 rows. A pair with
// Jaccard J becomes a candidate with probability 1-(1-J⁴)³²: ≈1-10⁻¹⁵ at J=0.9, 0.9998 at J=0.7.
const (
	numHashes = 128
	numBands  = 32
	bandRows  = numHashes / numBands
	seedBase  = 0x6261636B66696C6C // "backfill": first state of the seed generator
)

// SimilarPairs returns the index pairs (i<j) of names whose character 3-gram sets have a Jaccard
// similarity ≥ threshold (DefaultSimilarity when threshold ≤ 0 or NaN), sorted by i then j.
//
// Each name is normalized and its 3-grams are taken over " "+namekey.Normalize(name)+" ". Candidates come
// from MinHash signatures (128 seeded hash functions) split into 32 LSH bands of 4 rows, and every
// candidate is confirmed by exact Jaccard on the 3-gram sets, so no reported pair is a false
// positive; a pair at or above 0.7 is missed with probability below 10⁻³ (10⁻¹⁵ at 0.9). Names with
// an empty normalization never pair. The result is deterministic. Memory is linear in the total
// length of the names (about 300 bytes per name plus 8 bytes per 3-gram), plus the output: pass
// distinct names, since k copies of one name yield k(k-1)/2 pairs.
func SimilarPairs(names []string, threshold float64) [][2]int {
	if !(threshold > 0) {
		threshold = DefaultSimilarity
	}
	n := len(names)
	if n > math.MaxInt32 {
		panic("resolve: SimilarPairs: too many names")
	}
	sets, offs := shingleSets(names)
	keys := bandKeys(sets, offs)
	set := func(i int32) []uint64 { return sets[offs[i]:offs[i+1]] }

	type entry struct {
		key uint64
		idx int32
	}
	entries := make([]entry, 0, n)
	var out [][2]int
	for b := range numBands {
		entries = entries[:0]
		for i := range int32(n) {
			if offs[i+1] > offs[i] {
				entries = append(entries, entry{keys[int(i)*numBands+b], i})
			}
		}
		slices.SortFunc(entries, func(x, y entry) int {
			return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.idx, y.idx))
		})
		for lo := 0; lo < len(entries); {
			hi := lo + 1
			for hi < len(entries) && entries[hi].key == entries[lo].key {
				hi++
			}
			for p := lo; p < hi; p++ {
				for q := p + 1; q < hi; q++ {
					i, j := entries[p].idx, entries[q].idx
					if firstSharedBand(keys, int(i), int(j)) != b {
						continue // already judged in an earlier band
					}
					if jaccardAtLeast(set(i), set(j), threshold) {
						out = append(out, [2]int{int(i), int(j)})
					}
				}
			}
			lo = hi
		}
	}
	slices.SortFunc(out, func(x, y [2]int) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]))
	})
	return out
}

// firstSharedBand returns the first band where names i and j have the same key.
func firstSharedBand(keys []uint64, i, j int) int {
	ki, kj := keys[i*numBands:(i+1)*numBands], keys[j*numBands:(j+1)*numBands]
	for b := range numBands {
		if ki[b] == kj[b] {
			return b
		}
	}
	return numBands
}

// jaccardAtLeast reports whether |a∩b|/|a∪b| ≥ t for sorted, duplicate-free sets a and b.
func jaccardAtLeast(a, b []uint64, t float64) bool {
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if float64(small)/float64(large) < t { // the Jaccard bound |a∩b|/|a∪b| ≤ small/large
		return false
	}
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter)/float64(len(a)+len(b)-inter) >= t
}
