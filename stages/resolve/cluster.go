package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/internal/hangul"
	"github.com/tkgraph/backfill/internal/namekey"
)

// Scores of grey-zone pairs found by the lexical rules; embedding pairs score their cosine.
// Pairs are adjudicated best first, so these order which pairs survive Options.MaxPairs.
const (
	scoreStem     = 0.99 // two names that share a stem nobody says bare ("지훈은", "지훈이")
	scoreTokenSet = 0.98 // the same words in another order, but weak or differently typed
	scoreMinHash  = 0.97 // near-identical spellings of differently typed names
	scoreTokens   = 0.95 // one name's words (romanized) inside the other's: "Seoyeon", "Seoyeon Park", "서연"
)

// maxPosting bounds the names that share the rarest word of a name for the word-containment
// rule; a name whose every word is that common is not paired by it.
const maxPosting = 200

// pairKey orders a pair of ids.
func pairKey(a, b int) [2]int { return [2]int{min(a, b), max(a, b)} }

// addGrey records a grey-zone pair of keys with its score (the best score wins).
func (r *resolver) addGrey(a, b int, score float64) {
	if a == b {
		return
	}
	k := pairKey(a, b)
	if s, ok := r.grey[k]; !ok || score > s {
		r.grey[k] = score
	}
}

// mergeOrGrey merges two keys when both are strong names of compatible types, and otherwise
// makes them a grey-zone pair.
func (r *resolver) mergeOrGrey(a, b int, score float64) {
	if !r.amb[a] && !r.amb[b] && r.n.compatible(a, b) {
		r.uf.Union(a, b)
		return
	}
	r.addGrey(a, b, score)
}

// particles merges each name with its nearest stem that is itself a name of the group
// ("지훈은" with "지훈", "이지은은" with "이지은"); names that share a stem nobody says bare become
// grey-zone pairs.
func (r *resolver) particles() {
	owners := map[string][]int{}
	var order []string
	for i, k := range r.n.keys {
		merged := false
		for _, s := range namekey.Stems(k) {
			if j, ok := r.n.index[s]; ok {
				r.uf.Union(i, j)
				merged = true
				break
			}
		}
		if merged {
			continue
		}
		for _, s := range namekey.Stems(k) {
			if owners[s] == nil {
				order = append(order, s)
			}
			owners[s] = append(owners[s], i)
		}
	}
	for _, s := range order {
		for _, j := range owners[s][1:] {
			r.addGrey(owners[s][0], j, scoreStem)
		}
	}
}

// tokenSets merges names made of the same words in another order ("park seoyeon", "seoyeon park").
func (r *resolver) tokenSets() {
	first := map[string]int{}
	for i, k := range r.n.keys {
		words := strings.Fields(k)
		if len(words) < 2 {
			continue
		}
		slices.Sort(words)
		sig := strings.Join(words, " ")
		if j, ok := first[sig]; ok {
			r.mergeOrGrey(j, i, scoreTokenSet)
			continue
		}
		first[sig] = i
	}
}

// minHash merges strong names whose 3-gram sets have a Jaccard similarity of at least
// Options.MinHashThreshold.
func (r *resolver) minHash() {
	if r.opts.MinHashThreshold >= 1 {
		return
	}
	var idx []int
	var keys []string
	for i, k := range r.n.keys {
		if !r.amb[i] {
			idx = append(idx, i)
			keys = append(keys, k)
		}
	}
	for _, p := range SimilarPairs(keys, r.opts.MinHashThreshold) {
		r.mergeOrGrey(idx[p[0]], idx[p[1]], scoreMinHash)
	}
}

// wordContainment makes grey-zone pairs of names whose romanized words are contained in another
// name's ("seoyeon" in "seoyeon park"), or equal to them in another script or spelling ("서연",
// "seoyeon"; "seo-yeon"). A name made of family names only ("park") is not paired this way.
func (r *resolver) wordContainment() {
	toks := make([][]string, len(r.n.keys))
	post := map[string][]int{}
	for i, k := range r.n.keys {
		t := hangul.Tokens(k)
		slices.Sort(t)
		t = slices.Compact(t)
		toks[i] = t
		for _, w := range t {
			post[w] = append(post[w], i)
		}
	}
	for i, t := range toks {
		if len(t) == 0 || hangul.OnlyFamilyNames(t) {
			continue
		}
		rarest := slices.MinFunc(t, func(a, b string) int { return cmp.Compare(len(post[a]), len(post[b])) })
		if len(post[rarest]) > maxPosting {
			continue
		}
		for _, j := range post[rarest] {
			if j == i || len(toks[j]) < len(t) || (len(toks[j]) == len(t) && j < i) || !subset(t, toks[j]) {
				continue
			}
			r.addGrey(i, j, scoreTokens)
		}
	}
}

// subset reports whether every element of the sorted set a is in the sorted set b.
func subset(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}
