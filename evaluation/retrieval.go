package evaluation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
)

// Embedder embeds the questions; the job's embedder (the one that embedded the facts).
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// questionResult is one question's retrieval: hits per k, and the facts of the largest k.
type questionResult struct {
	q           *Question
	evidence    bool // some evidence episode is in the graph
	evHits      []bool
	ansHits     []bool
	cosineEmpty bool
	top         []graph.Fact // the largest k's facts, with their intervals
	at          time.Time
}

// retrieveGroup runs every question of one group: the facts valid at the question's time are
// searched by hybrid search for each k, and each k's facts are checked for an evidence episode
// and for the gold answer's terms.
func retrieveGroup(ctx context.Context, g *snapshots.Group, qs []Question, emb Embedder, ks []int, minCosine float64) ([]questionResult, int, error) {
	names := make(map[string]string, len(g.Entities))
	for _, e := range g.Entities {
		names[e.UUID] = e.Name
	}
	ix := newIndex(g.Facts, names)
	episodeOf := make(map[string]string, len(g.Episodes)) // record key → episode uuid
	var last time.Time
	for _, e := range g.Episodes {
		episodeOf[e.RecordKey] = e.UUID
		if e.ReferenceTime.After(last) {
			last = e.ReferenceTime
		}
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Text
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, 0, fmt.Errorf("embedding the questions of group %s: %w", g.ID, err)
	}
	if len(vecs) != len(qs) {
		return nil, 0, fmt.Errorf("embedding the questions of group %s: %d vectors for %d questions", g.ID, len(vecs), len(qs))
	}
	maxK := slices.Max(ks)
	missing := 0
	out := make([]questionResult, len(qs))
	for qi := range qs {
		q := &qs[qi]
		r := questionResult{q: q, at: last, evHits: make([]bool, len(ks)), ansHits: make([]bool, len(ks))}
		if q.At != nil {
			r.at = *q.At
		}
		evidence := map[string]bool{}
		for _, key := range q.Evidence {
			if id, ok := episodeOf[key]; ok {
				evidence[id] = true
			} else {
				missing++
			}
		}
		r.evidence = len(evidence) > 0
		allowed := make([]bool, len(g.Facts))
		for i, f := range g.Facts {
			allowed[i] = validAt(f, r.at)
		}
		query := terms(q.Text)
		answer := answerTerms(q.Answer)
		r.cosineEmpty = len(ix.cosine(vecs[qi], allowed, minCosine, 1)) == 0
		for ki, k := range ks {
			top := ix.hybrid(query, vecs[qi], allowed, minCosine, k)
			var hay []string
			for _, i := range top {
				f := g.Facts[i]
				if !r.evHits[ki] && slices.ContainsFunc(f.Episodes, func(ep string) bool { return evidence[ep] }) {
					r.evHits[ki] = true
				}
				hay = append(append(hay, answerTerms(ContextLine(f))...), "") // "" keeps answers inside one fact
			}
			r.ansHits[ki] = containsRun(hay, answer)
			if k == maxK {
				for _, i := range top {
					r.top = append(r.top, g.Facts[i])
				}
			}
		}
		out[qi] = r
	}
	return out, missing, nil
}

// validAt reports whether a fact's interval contains t (an unknown valid_at counts as "since
// ever"): the facts a question asked at t may retrieve. The interval is the fact's as stored,
// which is its last version: the graph as it is now, asked about time t.
func validAt(f graph.Fact, t time.Time) bool {
	if f.ValidAt != nil && f.ValidAt.After(t) {
		return false
	}
	return f.InvalidAt == nil || f.InvalidAt.After(t)
}
