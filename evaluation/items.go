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
