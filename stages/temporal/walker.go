package temporal

import (
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/unionfind"
	"github.com/tkgraph/backfill/stages"
)

// span is a fact's validity interval as the rules see it.
type span struct {
	valid, invalid *time.Time
	self           int // the fact it belongs to
	closer         int // the fact whose statement gave invalid (self for its own end); -1 when open
}

// walker replays a group's facts in record-time order and keeps the version log.
type walker struct {
	group    string
	facts    []stages.ResolvedFact
	contra   [][]int // contradicting facts of each fact, both directions
	dupOf    []int   // the earlier fact each fact was judged to duplicate, or -1
	comp     []int   // duplicate cluster of each fact (facts linked by duplicate judgements), or -1
	comps    [][]int // the facts of each cluster, ascending (group order)
	known    []bool  // recorded so far
	own      []span  // interval after closures among known facts, before merging duplicates
	root     []int   // view: the fact each fact is shown as (itself or the fact it merged into); -1 unknown
	view     []span  // view: interval of each root
	members  [][]int // view: facts merged into each root, ascending
	pub      []shown
	versions [][]graph.FactVersion
	stamp    []int // batch number that last touched each fact
	cstamp   []int // batch number that last touched each duplicate cluster
	batch    int
}

func newWalker(group string, facts []stages.ResolvedFact, judgements []Judgement) *walker {
	n := len(facts)
	w := &walker{group: group, facts: facts, contra: make([][]int, n), dupOf: make([]int, n), known: make([]bool, n),
		own: make([]span, n), root: make([]int, n), view: make([]span, n), members: make([][]int, n), pub: make([]shown, n),
		versions: make([][]graph.FactVersion, n), stamp: make([]int, n)}
	uf := unionfind.New(n)
	linked := make([]bool, n)
	for i := range facts {
		w.dupOf[i], w.root[i] = -1, -1
		if i >= len(judgements) {
			continue
		}
		for _, d := range judgements[i].Duplicates {
			if d >= 0 && d < i {
				w.dupOf[i] = d
				linked[i], linked[d] = true, true
				uf.Union(i, d)
				break
			}
		}
		for _, c := range judgements[i].Contradictions {
			if c >= 0 && c < i && !slices.Contains(w.contra[i], c) {
				w.contra[i] = append(w.contra[i], c)
				w.contra[c] = append(w.contra[c], i)
			}
		}
	}
	w.clusters(uf, linked)
	return w
}

// record adds the facts recorded at one record time, applies their contradictions and the
// closures known by then, recomputes the merged view and appends a version for every shown fact
// whose interval changed.
func (w *walker) record(batch []int, closures []closureRef, at time.Time) {
	w.batch++
	var touched []int
	touch := func(i int) {
		if w.stamp[i] != w.batch {
			w.stamp[i] = w.batch
			touched = append(touched, i)
		}
	}
	for _, i := range batch {
		f := w.facts[i]
		w.known[i] = true
		w.own[i] = span{valid: f.ValidAt, invalid: f.InvalidAt, self: i, closer: -1}
		if f.InvalidAt != nil {
			w.own[i].closer = i
		}
		touch(i)
	}
	for _, i := range batch {
		for _, j := range w.contra[i] {
			if !w.known[j] {
				continue
			}
			if loser, winner, ok := w.pair(i, j); ok && lower(&w.own[loser], w.own[winner].valid, winner) {
				touch(loser)
			}
		}
		for c, cl := range w.facts[i].Closures {
			if !cl.RecordTime.After(at) && w.close(i, c) {
				touch(i)
			}
		}
	}
	for _, c := range closures {
		if w.known[c.fact] && w.close(c.fact, c.closure) {
			touch(c.fact)
		}
	}
	var clusters []int // duplicate clusters touched by the batch
	for _, i := range touched {
		switch c := w.comp[i]; {
		case c < 0:
			w.root[i], w.view[i] = i, w.own[i]
		case w.cstamp[c] != w.batch:
			w.cstamp[c] = w.batch
			clusters = append(clusters, c)
		}
	}
	for _, c := range clusters {
		w.remerge(w.comps[c])
	}
	for _, i := range touched {
		if w.comp[i] < 0 && w.root[i] == i {
			w.publish(i, at)
		}
	}
	for _, c := range clusters {
		for _, i := range w.comps[c] {
			if w.known[i] && w.root[i] == i {
				w.publish(i, at)
			}
		}
	}
}

// pair orders two contradicting facts: the loser is the one that started first (on equal starts,
// the one earlier in group order). ok is false when either start is unknown (rule ④).
func (w *walker) pair(i, j int) (loser, winner int, ok bool) {
	a, b := w.own[i].valid, w.own[j].valid
	switch {
	case a == nil || b == nil:
		return 0, 0, false
	case a.Before(*b), a.Equal(*b) && i < j:
		return i, j, true
	}
	return j, i, true
}

// lower ends s at t (a statement of fact by) unless it already ends by then; on an equal end it
// only records the more deterministic cause (its own end first, then the lowest index).
func lower(s *span, t *time.Time, by int) bool {
	switch {
	case t == nil:
		return false
	case s.invalid == nil || t.Before(*s.invalid):
		s.invalid, s.closer = ptr(*t), by
		return true
	case t.Equal(*s.invalid) && s.closer != s.self && (by == s.self || by < s.closer):
		s.closer = by
	}
	return false
}

// closedByRecord is the closer of an interval ended by Closures[0] of a declared fact;
// Closures[c] is closedByRecord - c.
const closedByRecord = -2

// closureRef names Closures[closure] of facts[fact].
type closureRef struct{ fact, closure int }

// batch is what becomes known at one record time: facts recorded and closures of declared
// facts.
type batch struct {
	at       time.Time
	facts    []int
	closures []closureRef
}

// recordBatches groups the facts and closures of a group by record time, in record-time order
// (facts and closures in group order within a batch).
func recordBatches(facts []stages.ResolvedFact) []batch {
	byTime := map[time.Time]*batch{}
	var times []time.Time
	at := func(t time.Time) *batch {
		t = t.UTC()
		b, ok := byTime[t]
		if !ok {
			b = &batch{at: t}
			byTime[t] = b
			times = append(times, t)
		}
		return b
	}
	for i, f := range facts {
		b := at(f.RecordTime)
		b.facts = append(b.facts, i)
		for c, cl := range f.Closures {
			b := at(cl.RecordTime)
			b.closures = append(b.closures, closureRef{fact: i, closure: c})
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]batch, len(times))
	for k, t := range times {
		out[k] = *byTime[t]
	}
	return out
}

// close ends known declared fact i at the time of its closure c unless it already ends by then;
// it reports whether its interval changed.
func (w *walker) close(i, c int) bool {
	return lower(&w.own[i], ptr(w.facts[i].Closures[c].At), closedByRecord-c)
}

// closure is the closure of fact i that a closer value names, or nil when it names none.
func (w *walker) closure(i, closer int) *stages.Closure {
	c := closedByRecord - closer
	if closer > closedByRecord || c >= len(w.facts[i].Closures) {
		return nil
	}
	return &w.facts[i].Closures[c]
}
