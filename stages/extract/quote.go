package extract

import (
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// Quote cites a fact of an extraction to a previous episode (stages.Quote).
type Quote = stages.Quote

// A fact's sentence quotes a previous episode when it has at least quoteWords words, at least
// quoteShare of them are words of that episode (its speaker and content) and fewer than ownShare
// are words of the extracted episode. In the 1.5B model's answers (bench/results.md,
// issue-19-quotes) 35% of the LoCoMo facts and 23% of the gold-set facts were a previous
// message copied, cited to a message after it.
const (
	quoteWords = 4
	quoteShare = 0.8
	ownShare   = 0.5
)

// cite returns how many episodes before the extracted one the fact sentence quotes (0: it does
// not quote a previous episode): the previous episode with the largest share of the sentence's
// words, the latest of equal ones, when that share is at least quoteShare and the extracted
// episode's share is below ownShare.
func (r *repairer) cite(sentence string) int {
	ws := words(strings.ToLower(sentence))
	if len(ws) < quoteWords || len(r.in.Previous) == 0 {
		return 0
	}
	if r.own == nil {
		r.own = episodeWords(r.in.Episode)
		r.prev = make([]map[string]bool, len(r.in.Previous))
		for i, p := range r.in.Previous {
			r.prev[i] = episodeWords(p)
		}
	}
	if share(ws, r.own) >= ownShare {
		return 0
	}
	back, best := 0, quoteShare
	for i := len(r.prev) - 1; i >= 0; i-- { // newest first: ties go to the latest
		if s := share(ws, r.prev[i]); s > best || (s == best && back == 0) {
			back, best = len(r.prev)-i, s
		}
	}
	return back
}

// episodeWords is the set of lower-case words of an episode's speaker and content.
func episodeWords(ep wire.EpisodeIn) map[string]bool {
	return nameWords([]string{ep.Speaker, ep.Content})
}

// share is the fraction of ws found in set.
func share(ws []string, set map[string]bool) float64 {
	n := 0
	for _, w := range ws {
		if set[w] {
			n++
		}
	}
	return float64(n) / float64(len(ws))
}
