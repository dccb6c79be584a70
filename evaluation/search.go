package evaluation

import (
	"cmp"
	"math"
	"slices"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/vectors"
)

// Hybrid search as Graphiti's EDGE_HYBRID_SEARCH_RRF does it (graphiti_core/search): a BM25
// full-text search and a cosine-similarity search over the fact embeddings each return up to
// 2×limit candidates, fused by reciprocal rank fusion with rank constant 1 (score Σ 1/rank),
// ties kept in order of first appearance (BM25 list first); the first limit are the answer.
// Episodes are searched by BM25 alone, as Graphiti's episode search (the episode_content
// full-text index) does.
const (
	bm25K1          = 1.2 // Lucene's BM25Similarity defaults
	bm25B           = 0.75
	rrfRankConstant = 1
	// DefaultMinCosine is Graphiti's DEFAULT_MIN_SCORE for similarity search.
	DefaultMinCosine = 0.6
)

// bm25Index is Lucene's BM25 over one group's documents (each a list of terms): statistics
// (document count, lengths, document frequencies) are the group's, so a group's scores do not
// depend on the other groups.
type bm25Index struct {
	tf    []map[string]int
	dl    []float64
	df    map[string]int
	avgdl float64
}

func newBM25Index(docs [][]string) bm25Index {
	b := bm25Index{tf: make([]map[string]int, len(docs)), dl: make([]float64, len(docs)), df: map[string]int{}}
	total := 0.0
	for i, doc := range docs {
		tf := map[string]int{}
		for _, t := range doc {
			tf[t]++
		}
		for t := range tf {
			b.df[t]++
		}
		b.tf[i], b.dl[i] = tf, float64(len(doc))
		total += float64(len(doc))
	}
	if len(docs) > 0 {
		b.avgdl = total / float64(len(docs))
	}
	return b
}

// matching scores the allowed documents that share a term with the query.
func (b *bm25Index) matching(query []string, allowed []bool) []scored {
	var xs []scored
	for i := range b.tf {
		if !allowed[i] {
			continue
		}
		if s := b.score(i, query); s > 0 {
			xs = append(xs, scored{i, s})
		}
	}
	return xs
}

// index is one group's facts prepared for hybrid search. A fact's BM25 document is its sentence
// and the names of its two entities.
type index struct {
	bm25Index
	facts []graph.Fact
}

func newIndex(facts []graph.Fact, names map[string]string) *index {
	docs := make([][]string, len(facts))
	for i, f := range facts {
		for _, text := range []string{f.Fact, names[f.SourceUUID], names[f.TargetUUID]} {
			docs[i] = append(docs[i], terms(text)...)
		}
	}
	return &index{bm25Index: newBM25Index(docs), facts: facts}
}

// scored is a document index with its score in one ranking.
type scored struct {
	i     int
	score float64
}

// rank orders by score descending, then by fact uuid, and keeps the first limit.
func (ix *index) rank(xs []scored, limit int) []int {
	return top(xs, limit, func(a, b int) int { return cmp.Compare(ix.facts[a].UUID, ix.facts[b].UUID) })
}

// top orders by score descending, then by tie, and keeps the first limit.
func top(xs []scored, limit int, tie func(a, b int) int) []int {
	slices.SortFunc(xs, func(a, b scored) int { return cmp.Or(cmp.Compare(b.score, a.score), tie(a.i, b.i)) })
	out := make([]int, 0, min(limit, len(xs)))
	for _, x := range xs[:min(limit, len(xs))] {
		out = append(out, x.i)
	}
	return out
}

// bm25 ranks the allowed facts that share a term with the query.
func (ix *index) bm25(query []string, allowed []bool, limit int) []int {
	return ix.rank(ix.matching(query, allowed), limit)
}

// score is document i's BM25 score for the query: Σ over query terms (each one clause, repeats
// counting again, as in a Lucene boolean query) of idf·tf·(k1+1) / (tf + k1·(1−b+b·dl/avgdl)),
// idf = ln(1 + (N−df+0.5)/(df+0.5)).
func (ix *bm25Index) score(i int, query []string) float64 {
	n := float64(len(ix.tf))
	s := 0.0
	for _, t := range query {
		f := float64(ix.tf[i][t])
		if f == 0 {
			continue
		}
		df := float64(ix.df[t])
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		s += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*ix.dl[i]/ix.avgdl))
	}
	return s
}

// cosine ranks the allowed facts with an embedding whose cosine similarity to q is above
// minScore (strictly, as Graphiti filters).
func (ix *index) cosine(q []float32, allowed []bool, minScore float64, limit int) []int {
	if len(q) == 0 {
		return nil
	}
	var xs []scored
	for i, f := range ix.facts {
		if !allowed[i] || len(f.Embedding) != len(q) {
			continue
		}
		if s := vectors.Cosine(q, f.Embedding); s > minScore {
			xs = append(xs, scored{i, s})
		}
	}
	return ix.rank(xs, limit)
}

// rrf fuses rankings: each item scores Σ 1/(position + rrfRankConstant) with positions from 0;
// ties keep the order in which items first appear, lists taken in order.
func rrf[T comparable](lists ...[]T) []T {
	score := map[T]float64{}
	var order []T
	for _, l := range lists {
		for pos, i := range l {
			if _, seen := score[i]; !seen {
				order = append(order, i)
			}
			score[i] += 1 / float64(pos+rrfRankConstant)
		}
	}
	slices.SortStableFunc(order, func(a, b T) int { return cmp.Compare(score[b], score[a]) })
	return order
}

// hybrid is the fused top limit of both searches, each asked for 2×limit candidates.
func (ix *index) hybrid(query []string, q []float32, allowed []bool, minCosine float64, limit int) []int {
	fused := rrf(ix.bm25(query, allowed, 2*limit), ix.cosine(q, allowed, minCosine, 2*limit))
	return fused[:min(limit, len(fused))]
}
