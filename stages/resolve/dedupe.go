package resolve

import (
	"context"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/internal/unionfind"
	"github.com/tkgraph/backfill/llm/wire"
)

// similarFacts returns the pairs (i<j) of facts between the same two entities (either direction)
// whose sentences are similar but not equal: a 3-gram Jaccard of at least Options.FactJaccard or
// an embedding cosine of at least Options.FactCosine. Each fact is compared with the last
// factWindow earlier facts of its endpoint pair. Only facts that share their endpoints with
// another fact are embedded.
func (r *resolver) similarFacts(ctx context.Context, facts []mapped) ([][2]int, error) {
	byPair := map[[2]int][]int{}
	var multi []int
	for i, f := range facts {
		k := pairKey(f.src, f.tgt)
		byPair[k] = append(byPair[k], i)
		if len(byPair[k]) == 2 {
			multi = append(multi, byPair[k][0])
		}
		if len(byPair[k]) >= 2 {
			multi = append(multi, i)
		}
	}
	if len(multi) == 0 {
		return nil, nil
	}
	vec := map[int][]float32{}
	if r.env.Embedder != nil && r.opts.FactCosine < 1 {
		texts := make([]string, len(multi))
		for k, i := range multi {
			texts[k] = facts[i].Fact.Fact
		}
		vecs, err := r.env.Embedder.Embed(ctx, texts)
		switch {
		case err != nil && r.bad.Absorb(err) == nil:
			vecs = nil // a bad answer: text similarity alone, and the group fails (stages.Degraded)
		case err != nil:
			return nil, fmt.Errorf("embedding facts: %w", err)
		case len(vecs) != len(texts):
			return nil, fmt.Errorf("embedding facts: %d vectors for %d texts", len(vecs), len(texts))
		}
		for k, v := range normalized(vecs) {
			vec[multi[k]] = v
		}
	}
	pos := make([]int, len(facts)) // position of each fact in its endpoint pair's list
	for _, list := range byPair {
		for k, i := range list {
			pos[i] = k
		}
	}
	var out [][2]int
	for j, f := range facts {
		same := byPair[pairKey(f.src, f.tgt)]
		for _, i := range same[max(0, pos[j]-factWindow):pos[j]] {
			a, b := facts[i], facts[j]
			sim := trigramJaccard(a.norm, b.norm) >= r.opts.FactJaccard
			if !sim && vec[i] != nil && vec[j] != nil {
				sim = dot(vec[i], vec[j]) >= r.opts.FactCosine
			}
			if sim {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out, nil
}

// trigramJaccard is the exact Jaccard similarity of the character 3-gram sets of two texts.
func trigramJaccard(a, b string) float64 {
	sets, offs := shingleSets([]string{a, b})
	x, y := sets[offs[0]:offs[1]], sets[offs[1]:offs[2]]
	if len(x) == 0 || len(y) == 0 {
		return 0
	}
	inter := 0
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] < y[j]:
			i++
		case x[i] > y[j]:
			j++
		default:
			inter++
			i++
			j++
		}
	}
	return float64(inter) / float64(len(x)+len(y)-inter)
}

// dedupeFacts asks the LLM, in batches, whether the similar pairs are duplicates (answering from
// the memo where it can) and merges each duplicate into the earliest fact of its set: the merged
// fact keeps the earliest fact's statement and dates, and its episodes are the union, the
// creating episode first. The result keeps group order.
func (r *resolver) dedupeFacts(ctx context.Context, facts []mapped) ([]Fact, error) {
	pairs, err := r.similarFacts(ctx, facts)
	if err != nil {
		return nil, err
	}
	if len(pairs) > r.opts.MaxPairs {
		r.log().Warn("resolve: too many similar fact pairs; the rest stay apart", "group", r.group,
			"pairs", len(pairs), "max_pairs", r.opts.MaxPairs)
		pairs = pairs[:r.opts.MaxPairs]
	}
	r.stats.FactPairs = len(pairs)
	dup := make([]bool, len(pairs))
	var ask []int
	for k, p := range pairs {
		key := memoKey(facts[p[0]].UUID, facts[p[1]].UUID)
		if v, ok := lookup(r.prev, r.used.Version, func(m *Memo) map[string]bool { return m.Facts }, key); ok {
			dup[k] = v
			r.used.Facts[key] = v
			continue
		}
		ask = append(ask, k)
	}
	if r.opts.NoLLM || r.env.LLM == nil {
		ask = nil
	}
	r.stats.FactAsked = len(ask)
	answers, answered, err := r.askInBatches(ctx, ask, func(ctx context.Context, batch []int) ([]string, error) {
		var out wire.DedupeOutput
		if err := r.env.LLM.Call(ctx, Stage, wire.TaskDedupeFacts, dedupeInput(facts, pairs, batch), &out); err != nil {
			return nil, fmt.Errorf("de-duplicating facts of group %s: %w", r.group, err)
		}
		return out.Duplicates, nil
	})
	if err != nil {
		return nil, err
	}
	for k, i := range ask {
		dup[i] = answers[k]
		if answered[k] {
			r.used.Facts[memoKey(facts[pairs[i][0]].UUID, facts[pairs[i][1]].UUID)] = dup[i]
		}
	}
	uf := unionfind.New(len(facts))
	for k, p := range pairs {
		if dup[k] {
			uf.Union(p[0], p[1])
		}
	}
	var out []Fact
	pos := map[int]int{}
	for i, f := range facts {
		root := uf.Find(i)
		if root == i {
			pos[i] = len(out)
			out = append(out, f.Fact)
			continue
		}
		o := &out[pos[root]]
		o.Episodes = appendMissing(o.Episodes, f.Episodes...)
	}
	return out, nil
}

// dedupeInput builds the question about the pairs pairs[b…] of one batch: the facts in order of
// first appearance as F0, F1…, the pairs as P0, P1….
func dedupeInput(facts []mapped, pairs [][2]int, batch []int) wire.DedupeInput {
	in := wire.DedupeInput{Facts: []wire.FactIn{}, Pairs: []wire.PairIn{}}
	ids := map[int]string{}
	id := func(i int) string {
		if s, ok := ids[i]; ok {
			return s
		}
		s := fmt.Sprintf("F%d", len(ids))
		ids[i] = s
		f := facts[i]
		in.Facts = append(in.Facts, wire.FactIn{ID: s, Predicate: f.Predicate, Fact: f.Fact.Fact,
			ValidAt: formatTime(f.ValidAt), InvalidAt: formatTime(f.InvalidAt)})
		return s
	}
	for k, i := range batch {
		a, b := id(pairs[i][0]), id(pairs[i][1])
		in.Pairs = append(in.Pairs, wire.PairIn{ID: pairID(k), A: a, B: b})
	}
	return in
}

// formatTime writes an optional time as RFC 3339 UTC.
func formatTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}
