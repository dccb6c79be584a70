package evaluation

import (
	"cmp"
	"strings"

	"github.com/tkgraph/backfill/graph"
)

// episodeIndex is one group's episodes prepared for BM25 search, in the group's episode order.
type episodeIndex struct {
	bm25Index
	eps []graph.Episode
}

func newEpisodeIndex(eps []graph.Episode) *episodeIndex {
	docs := make([][]string, len(eps))
	for i := range eps {
		docs[i] = terms(EpisodeText(eps[i]))
	}
	return &episodeIndex{bm25Index: newBM25Index(docs), eps: eps}
}

// search is the top limit allowed episodes by BM25, ties in episode order.
func (x *episodeIndex) search(query []string, allowed []bool, limit int) []int {
	return top(x.matching(query, allowed), limit, cmp.Compare[int])
}

// EpisodeText is an episode's searchable text, the same whoever wrote the graph: its content,
// after "speaker: " when the episode has a speaker its content does not already start with
// (Graphiti writes a message as "speaker: text" in its content; backfill keeps the speaker apart).
func EpisodeText(e graph.Episode) string {
	if e.Speaker == "" || strings.HasPrefix(e.Content, e.Speaker+":") {
		return e.Content
	}
	return e.Speaker + ": " + e.Content
}
