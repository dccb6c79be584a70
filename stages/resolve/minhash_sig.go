package resolve

import (
	"slices"

	"github.com/tkgraph/backfill/internal/namekey"
)

// shingleSets returns the 3-gram set of every name, flattened: the set of name i is
// sets[offs[i]:offs[i+1]], sorted and duplicate-free. A 3-gram is encoded exactly (21 bits per
// rune), so set equality and Jaccard are exact.
func shingleSets(names []string) (sets []uint64, offs []int) {
	offs = make([]int, 1, len(names)+1)
	var buf []rune
	for _, name := range names {
		n := namekey.Normalize(name)
		if n != "" {
			buf = append(append(append(buf[:0], ' '), []rune(n)...), ' ')
			start := len(sets)
			for k := 0; k+3 <= len(buf); k++ {
				sets = append(sets, uint64(buf[k])<<42|uint64(buf[k+1])<<21|uint64(buf[k+2]))
			}
			s := sets[start:]
			slices.Sort(s)
			sets = sets[:start+len(slices.Compact(s))]
		}
		offs = append(offs, len(sets))
	}
	return sets, offs
}

// bandKeys returns, for every name, the keys of its numBands LSH bands (name i at
// keys[i*numBands:(i+1)*numBands]): each key hashes the bandRows MinHash values of its band. The
// keys of a name with an empty set are zero and unused.
func bandKeys(sets []uint64, offs []int) []uint64 {
	n := len(offs) - 1
	seeds := hashSeeds()
	keys := make([]uint64, n*numBands)
	var sig [numHashes]uint64
	for i := range n {
		set := sets[offs[i]:offs[i+1]]
		if len(set) == 0 {
			continue
		}
		for k := range sig {
			sig[k] = ^uint64(0)
		}
		for _, g := range set {
			for k, s := range seeds {
				sig[k] = min(sig[k], mix64(g^s))
			}
		}
		for b := range numBands {
			h := uint64(b)
			for _, v := range sig[b*bandRows : (b+1)*bandRows] {
				h = mix64(h ^ v)
			}
			keys[i*numBands+b] = h
		}
	}
	return keys
}

// hashSeeds returns the numHashes seeds of the MinHash functions, drawn from splitmix64 started at
// seedBase, so every run uses the same functions.
func hashSeeds() [numHashes]uint64 {
	var seeds [numHashes]uint64
	state := uint64(seedBase)
	for k := range seeds {
		state += 0x9E3779B97F4A7C15
		seeds[k] = mix64(state)
	}
	return seeds
}

// mix64 is the splitmix64 finalizer: a bijective, well-mixing hash of a 64-bit value.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}
