package evaluation

import (
	"github.com/tkgraph/backfill/snapshots"
)

// item is one retrieved thing: a fact or an episode of the group, by index.
type item struct {
	fact bool
	i    int
}

func factItems(xs []int) []item {
	out := make([]item, len(xs))
	for n, i := range xs {
		out[n] = item{fact: true, i: i}
	}
	return out
}

func episodeItems(xs []int) []item {
	out := make([]item, len(xs))
	for n, i := range xs {
		out[n] = item{i: i}
	}
	return out
}

func firstN[T any](xs []T, n int) []T { return xs[:min(n, len(xs))] }

// fuse is ModeFactsEpisodes: two rankings (the hybrid episodes, then the facts whose embedding
// is above the cosine floor) fused by reciprocal rank fusion, ties to the first list, into one
// list of k items, in which no item repeats only episodes shown already (a fact whose episodes
// are all in the list, or an episode a listed fact comes from, is passed over). Facts found only
// by BM25 (a shared name, "Caroline") are not offered: measured on LoCoMo with all-MiniLM-L6-v2
// they displaced evidence turns (bench/results.md, issue 44).
func fuse(g *snapshots.Group, k int, first, second []item) []item {
	uuid := make(map[string]bool)
	var out []item
	for _, it := range rrf(first, second) {
		if len(out) == k {
			break
		}
		eps := itemEpisodes(g, it)
		fresh := false
		for _, e := range eps {
			if !uuid[e] {
				fresh = true
			}
		}
		if !fresh {
			continue
		}
		for _, e := range eps {
			uuid[e] = true
		}
		out = append(out, it)
	}
	return out
}

// itemEpisodes are the episodes an item stands for: a fact's (those it comes from) or the
// episode itself.
func itemEpisodes(g *snapshots.Group, it item) []string {
	if it.fact {
		return g.Facts[it.i].Episodes
	}
	return []string{g.Episodes[it.i].UUID}
}

// retrieved are the episodes an item list stands for and the terms of its texts (a fact's
// context line, an episode's text), each text ended by "" so that an answer never runs across
// two texts.
func retrieved(g *snapshots.Group, items []item) (eps, hay []string) {
	for _, it := range items {
		eps = append(eps, itemEpisodes(g, it)...)
		text := EpisodeText(g.Episodes[it.i])
		if it.fact {
			text = ContextLine(g.Facts[it.i])
		}
		hay = append(append(hay, answerTerms(text)...), "")
	}
	return eps, hay
}
