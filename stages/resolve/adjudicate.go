package resolve

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/llm/wire"
)

// maxAliases is how many other spellings of a cluster the LLM is shown.
const maxAliases = 4

// clusterPairs maps the grey-zone key pairs to pairs of current clusters (their smallest key
// ids), drops pairs already in one cluster, keeps each cluster pair once with its best score and
// returns them best first, then by ids.
func (r *resolver) clusterPairs() []scored {
	best := map[[2]int]float64{}
	for k, s := range r.grey {
		p := pairKey(r.uf.Find(k[0]), r.uf.Find(k[1]))
		if p[0] == p[1] {
			continue
		}
		if old, ok := best[p]; !ok || s > old {
			best[p] = s
		}
	}
	out := make([]scored, 0, len(best))
	for p, s := range best {
		out = append(out, scored{p, s})
	}
	slices.SortFunc(out, func(x, y scored) int {
		return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.p[0], y.p[0]), cmp.Compare(x.p[1], y.p[1]))
	})
	return out
}

// scored is a pair with its score.
type scored struct {
	p     [2]int
	score float64
}

// entityKey is the memo key of a pair of clusters: their canonical keys.
func (r *resolver) entityKey(sp scored, members map[int][]int) string {
	return memoKey(r.n.keys[r.canonical(members[sp.p[0]])], r.n.keys[r.canonical(members[sp.p[1]])])
}

// applyMemo merges the grey-zone pairs the memo says are the same entity, pass after pass (a
// cluster merged in a pass waits for the next, so every key is read from one clustering), until
// no pass merges. New mentions then meet the entities earlier runs already assembled.
func (r *resolver) applyMemo() {
	for {
		members := r.members()
		touched := map[int]bool{}
		merged := false
		for _, sp := range r.clusterPairs() {
			if touched[sp.p[0]] || touched[sp.p[1]] {
				continue
			}
			key := r.entityKey(sp, members)
			if same, ok := lookup(r.prev, r.used.Version, func(m *Memo) map[string]bool { return m.Entities }, key); ok && same {
				r.used.Entities[key] = true
				r.stats.EntityPairs++
				r.uf.Union(sp.p[0], sp.p[1])
				touched[sp.p[0]], touched[sp.p[1]], merged = true, true, true
			}
		}
		if !merged {
			return
		}
	}
}

// adjudicate settles the grey zone: the memo's merges first (applyMemo), then the LLM is asked,
// in batches of Options.BatchSize, about the cluster pairs the memo does not answer (at most
// Options.MaxPairs, best first), and the pairs it calls the same are merged.
func (r *resolver) adjudicate(ctx context.Context) error {
	r.applyMemo()
	pairs := r.clusterPairs()
	members := r.members()
	keys := make([]string, len(pairs))
	var ask []int
	for i, sp := range pairs {
		keys[i] = r.entityKey(sp, members)
		if same, ok := lookup(r.prev, r.used.Version, func(m *Memo) map[string]bool { return m.Entities }, keys[i]); ok {
			r.used.Entities[keys[i]] = same
			r.stats.EntityPairs++
			continue
		}
		ask = append(ask, i)
	}
	if r.opts.NoLLM || r.env.LLM == nil {
		ask = nil
	}
	if len(ask) > r.opts.MaxPairs {
		r.log().Warn("resolve: too many ambiguous entity pairs; the rest stay apart", "group", r.group,
			"pairs", len(ask), "max_pairs", r.opts.MaxPairs)
		ask = ask[:r.opts.MaxPairs]
	}
	r.stats.EntityPairs += len(ask)
	r.stats.EntityAsked = len(ask)
	answers, answered, err := r.askInBatches(ctx, ask, func(ctx context.Context, batch []int) ([]string, error) {
		var out wire.ResolveOutput
		if err := r.env.LLM.Call(ctx, Stage, wire.TaskResolveEntities, r.resolveInput(pairs, batch, members), &out); err != nil {
			return nil, fmt.Errorf("adjudicating entities of group %s: %w", r.group, err)
		}
		return out.Same, nil
	})
	if err != nil {
		return err
	}
	for k, i := range ask {
		if answered[k] {
			r.used.Entities[keys[i]] = answers[k]
		}
		if answers[k] {
			r.uf.Union(pairs[i].p[0], pairs[i].p[1])
		}
	}
	return nil
}

// resolveInput builds the question about the pairs pairs[b…] of one batch: the clusters in
// order of first appearance as N0, N1…, the pairs as P0, P1….
func (r *resolver) resolveInput(pairs []scored, batch []int, members map[int][]int) wire.ResolveInput {
	in := wire.ResolveInput{Entities: []wire.CandidateIn{}, Pairs: []wire.PairIn{}}
	ids := map[int]string{}
	id := func(root int) string {
		if s, ok := ids[root]; ok {
			return s
		}
		s := fmt.Sprintf("N%d", len(ids))
		ids[root] = s
		in.Entities = append(in.Entities, r.candidate(s, members[root]))
		return s
	}
	for k, i := range batch {
		a, b := id(pairs[i].p[0]), id(pairs[i].p[1])
		in.Pairs = append(in.Pairs, wire.PairIn{ID: pairID(k), A: a, B: b})
	}
	return in
}

// candidate shows one cluster to the LLM: its canonical spelling, type, other spellings and a
// few facts.
func (r *resolver) candidate(id string, members []int) wire.CandidateIn {
	c := wire.CandidateIn{ID: id, Type: "Entity"}
	canon := r.canonical(members)
	c.Name = r.n.spell[canon]
	for _, m := range members {
		if len(r.n.types[m]) > 0 && c.Type == "Entity" {
			c.Type = r.n.types[m][0]
		}
		if m != canon && len(c.Aliases) < maxAliases && r.n.spell[m] != c.Name && !slices.Contains(c.Aliases, r.n.spell[m]) {
			c.Aliases = append(c.Aliases, r.n.spell[m])
		}
		for _, f := range r.n.context[m] {
			if len(c.Facts) < contextFacts && !slices.Contains(c.Facts, f) {
				c.Facts = append(c.Facts, f)
			}
		}
	}
	return c
}

// members returns the key ids of every current cluster, by its smallest id, ascending.
func (r *resolver) members() map[int][]int {
	out := map[int][]int{}
	for i := range r.n.keys {
		root := r.uf.Find(i)
		out[root] = append(out[root], i)
	}
	return out
}

// canonical returns the key that names a cluster (members ascending): the earliest key, or its
// nearest stem when that stem is also in the cluster ("지훈" rather than "지훈은").
func (r *resolver) canonical(members []int) int {
	first := members[0]
	for _, s := range namekey.Stems(r.n.keys[first]) {
		if j, ok := r.n.index[s]; ok && r.uf.Find(j) == r.uf.Find(first) {
			return j
		}
	}
	return first
}
