package temporal

import (
	"time"

	"github.com/tkgraph/backfill/graph"
)

// shown is the last state of a fact written to the version log.
type shown struct {
	seen             bool
	invalid, expired *time.Time
}

// publish appends a version of root fact i when its interval differs from the last one written.
func (w *walker) publish(i int, at time.Time) {
	cur, p := w.view[i], &w.pub[i]
	if p.seen && graph.SameTime(p.invalid, cur.invalid) {
		return
	}
	reason, ep := graph.ReasonCreated, w.episode(i)
	switch {
	case !p.seen && cur.invalid == nil:
	case w.closure(i, cur.closer) != nil:
		reason, ep = graph.ReasonClosedByRecord, w.closure(i, cur.closer).Episode
	case !p.seen && cur.closer == i:
		reason = graph.ReasonArrivedClosed
	case !p.seen:
		reason = graph.ReasonClosedByLaterStart
	default:
		reason, ep = graph.ReasonClosedByNewer, w.episode(cur.closer)
	}
	if cur.invalid != nil && p.expired == nil {
		p.expired = ptr(at)
	}
	p.seen, p.invalid = true, cur.invalid
	w.versions[i] = append(w.versions[i], graph.FactVersion{FactUUID: w.facts[i].UUID, GroupID: w.group,
		Seq: len(w.versions[i]), RecordTime: at, ValidAt: cur.valid, InvalidAt: cur.invalid, ExpiredAt: p.expired,
		EpisodeUUID: ep, Reason: reason})
}

// episode is the creating episode of fact i ("" when it has none).
func (w *walker) episode(i int) string {
	if i < 0 || len(w.facts[i].Episodes) == 0 {
		return ""
	}
	return w.facts[i].Episodes[0]
}
