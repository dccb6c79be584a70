package evaluation

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/vectors"
)

// episodeIndex is one group's episodes prepared for BM25 and similarity search, in the group's
// episode order.
type episodeIndex struct {
	bm25Index
	eps  []graph.Episode
	docs [][]string  // each episode's BM25 document, as terms
	vecs [][]float32 // EpisodeText embedded by the eval's embedder (embed)
}

func newEpisodeIndex(eps []graph.Episode) *episodeIndex {
	docs := make([][]string, len(eps))
	for i := range eps {
		docs[i] = terms(EpisodeText(eps[i]))
	}
	return &episodeIndex{bm25Index: newBM25Index(docs), eps: eps, docs: docs}
}

// withFacts is the index searched for ModeFactsEpisodes: the same episodes and embeddings,
// each episode's BM25 document its text followed by the sentences of the facts extracted from it
// (document expansion): a turn is found by what the graph learned from it as well as by its
// words, and no fact takes one of the k places. Measured on LoCoMo (bench/results.md, issue 44),
// fact items in the list displaced evidence turns more often than they found one.
func (x *episodeIndex) withFacts(facts []graph.Fact) *episodeIndex {
	pos := make(map[string]int, len(x.eps))
	docs := make([][]string, len(x.docs))
	for i, d := range x.docs {
		pos[x.eps[i].UUID] = i
		docs[i] = slices.Clip(d) // an append copies: x's documents stay as they are
	}
	for _, f := range facts {
		for _, e := range f.Episodes {
			if i, ok := pos[e]; ok {
				docs[i] = append(docs[i], terms(f.Fact)...)
			}
		}
	}
	return &episodeIndex{bm25Index: newBM25Index(docs), eps: x.eps, docs: docs, vecs: x.vecs}
}

// search is the top limit allowed episodes by BM25, ties in episode order.
func (x *episodeIndex) search(query []string, allowed []bool, limit int) []int {
	return top(x.matching(query, allowed), limit, cmp.Compare[int])
}

// embed embeds every episode's EpisodeText with emb (the job's embedder, the one of the
// questions and the facts), for dense search.
func (x *episodeIndex) embed(ctx context.Context, emb Embedder) error {
	if len(x.eps) == 0 {
		return nil
	}
	texts := make([]string, len(x.eps))
	for i := range x.eps {
		texts[i] = EpisodeText(x.eps[i])
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return err
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("%d vectors for %d episodes", len(vecs), len(texts))
	}
	x.vecs = vecs
	return nil
}

// dense is the top limit allowed episodes by cosine similarity of their embedding to q (no
// floor: the strongest dense baseline ranks every episode), ties in episode order.
func (x *episodeIndex) dense(q []float32, allowed []bool, limit int) []int {
	if len(q) == 0 {
		return nil
	}
	var xs []scored
	for i, v := range x.vecs {
		if allowed[i] && len(v) == len(q) {
			xs = append(xs, scored{i, vectors.Cosine(q, v)})
		}
	}
	return top(xs, limit, cmp.Compare[int])
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
