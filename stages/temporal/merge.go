package temporal

import (
	"time"

	"github.com/tkgraph/backfill/internal/unionfind"
)

// clusters numbers the duplicate clusters: facts linked by duplicate judgements, each cluster's
// facts in group order. Merging never crosses clusters, so a batch recomputes only the clusters
// it touched.
func (w *walker) clusters(uf *unionfind.Forest, linked []bool) {
	n := len(w.facts)
	w.comp = make([]int, n)
	ids := map[int]int{}
	for i := range n {
		w.comp[i] = -1
		if !linked[i] {
			continue
		}
		c, ok := ids[uf.Find(i)]
		if !ok {
			c = len(w.comps)
			ids[uf.Find(i)] = c
			w.comps = append(w.comps, nil)
		}
		w.comp[i] = c
		w.comps[c] = append(w.comps[c], i)
	}
	w.cstamp = make([]int, len(w.comps))
}

// remerge recomputes, in group order, which facts of one duplicate cluster merge into which. A
// duplicate merges into the fact its judged original is shown as while their intervals overlap
// (or a start is unknown); its end then also ends that fact. A fact already written to the
// version log on its own stays on its own, so the log is append-only.
func (w *walker) remerge(cluster []int) {
	for _, i := range cluster {
		w.members[i] = w.members[i][:0]
	}
	for _, i := range cluster {
		if !w.known[i] {
			w.root[i] = -1
			continue
		}
		w.root[i], w.view[i] = i, w.own[i]
		d := w.dupOf[i]
		if d < 0 || !w.known[d] || w.pub[i].seen {
			continue
		}
		r := w.root[d]
		if !mergeable(w.own[i], w.view[r]) {
			continue
		}
		w.root[i] = r
		w.members[r] = append(w.members[r], i)
		if e := w.own[i]; e.invalid != nil && (w.view[r].valid == nil || e.invalid.After(*w.view[r].valid)) {
			lower(&w.view[r], e.invalid, e.closer)
		}
	}
}

// mergeable reports whether a duplicate d can be the same fact as r: a start is unknown, or the
// intervals share an instant (an event's instant, valid_at = invalid_at, counts as held at it).
func mergeable(d, r span) bool {
	if d.valid == nil || r.valid == nil {
		return true
	}
	return lastsTo(d, *r.valid) && lastsTo(r, *d.valid)
}

// lastsTo reports whether s holds at t or later: open, ending after t, or an instant at t.
func lastsTo(s span, t time.Time) bool {
	return s.invalid == nil || s.invalid.After(t) || s.invalid.Equal(t) && s.valid != nil && s.valid.Equal(*s.invalid)
}
