package timeline

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// Fact is one row: a fact as known now, its version log and the names of its endpoints.
type Fact struct {
	graph.Fact
	Versions []graph.FactVersion // any order; none: the fact as it is, from its created_at
	Source   string
	Target   string
}

// Section is the facts of one group.
type Section struct {
	Group string
	Facts []Fact
}

// Page is what Write draws.
type Page struct {
	Entity   string    // the name asked for
	Sections []Section // one chart each
	KnownAt  time.Time // where the known-at slider starts
}

// Geometry of a chart, in SVG user units.
const (
	pageW    = 1200.0
	plotX0   = 400.0 // the plot's left edge; the labels are left of it
	plotX1   = 1170.0
	rowH     = 34.0
	headH    = 34.0 // above the first row: the axis labels
	barY     = 7.0  // the bar's top within its row
	barH     = 12.0
	lineY    = 27.0 // the record-time line within its row
	labelMax = 52   // label width in columns (a wide rune counts 2)
)

// version is a fact as the system knew it from one record time until the next.
type version struct {
	from, to  time.Time // record times; to is zero for the last version
	validAt   *time.Time
	invalidAt *time.Time
	expiredAt *time.Time
}

// versions returns the fact's versions by record time (by seq when equal).
func versions(f Fact) []version {
	vs := slices.Clone(f.Versions)
	slices.SortStableFunc(vs, func(a, b graph.FactVersion) int {
		return cmp.Or(a.RecordTime.Compare(b.RecordTime), cmp.Compare(a.Seq, b.Seq))
	})
	var out []version
	for _, v := range vs {
		if n := len(out); n > 0 && out[n-1].from.Equal(v.RecordTime) {
			out = out[:n-1] // a later change at the same record time replaces it
		}
		if n := len(out); n > 0 {
			out[n-1].to = v.RecordTime
		}
		out = append(out, version{from: v.RecordTime, validAt: v.ValidAt, invalidAt: v.InvalidAt, expiredAt: v.ExpiredAt})
	}
	if len(out) == 0 {
		out = []version{{from: f.CreatedAt, validAt: f.ValidAt, invalidAt: f.InvalidAt, expiredAt: f.ExpiredAt}}
	}
	return out
}

// inForce returns the index of the version the system held at k, or -1 before the first.
func inForce(vs []version, k time.Time) int {
	i := -1
	for j, v := range vs {
		if !v.from.After(k) {
			i = j
		}
	}
	return i
}

// scale maps times onto [plotX0, plotX1].
type scale struct{ t0, t1 time.Time }

// newScale spans every time of the page with a margin of 3% on each side (a day when all times
// are one instant).
func newScale(ts []time.Time) scale {
	if len(ts) == 0 {
		now := time.Unix(0, 0).UTC()
		return scale{now.AddDate(0, 0, -1), now.AddDate(0, 0, 1)}
	}
	lo, hi := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	pad := hi.Sub(lo) * 3 / 100
	if pad == 0 {
		pad = 24 * time.Hour
	}
	return scale{lo.Add(-pad), hi.Add(pad)}
}

func (s scale) x(t time.Time) float64 {
	f := float64(t.Sub(s.t0)) / float64(s.t1.Sub(s.t0))
	return round1(plotX0 + f*(plotX1-plotX0))
}

// clampedX is x kept within the plot (for the known-at line, which may be far later).
func (s scale) clampedX(t time.Time) float64 { return min(max(s.x(t), plotX0), plotX1) }

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// times lists every time a page draws.
func times(p Page) []time.Time {
	var ts []time.Time
	add := func(t *time.Time) {
		if t != nil && !t.IsZero() {
			ts = append(ts, *t)
		}
	}
	for _, s := range p.Sections {
		for _, f := range s.Facts {
			for _, v := range versions(f) {
				add(&v.from)
				add(v.validAt)
				add(v.invalidAt)
				add(v.expiredAt)
			}
		}
	}
	return ts
}

// tick is a labelled time on the axis.
type tick struct {
	X     float64
	Label string
}

// steps of the axis, finest first.
var tickSteps = []struct {
	months, days int
	layout       string
}{
	{0, 1, "2006-01-02"}, {0, 7, "2006-01-02"}, {1, 0, "2006-01"}, {3, 0, "2006-01"}, {6, 0, "2006-01"},
	{12, 0, "2006"}, {24, 0, "2006"}, {60, 0, "2006"}, {120, 0, "2006"},
}

// maxTicks is the most labels the axis shows.
const maxTicks = 9

// ticks returns the labelled times of the axis: the finest step that gives at most maxTicks,
// aligned to midnight, the month or the year.
func (s scale) ticks() []tick {
	for _, st := range tickSteps {
		t := time.Date(s.t0.Year(), s.t0.Month(), s.t0.Day(), 0, 0, 0, 0, time.UTC)
		switch {
		case st.months >= 12:
			t = time.Date(t.Year()-t.Year()%(st.months/12), 1, 1, 0, 0, 0, 0, time.UTC)
		case st.months > 0:
			t = time.Date(t.Year(), t.Month()-(t.Month()-1)%time.Month(st.months), 1, 0, 0, 0, 0, time.UTC)
		}
		var out []tick
		for ; !t.After(s.t1) && len(out) <= maxTicks; t = t.AddDate(0, st.months, st.days) {
			if !t.Before(s.t0) {
				out = append(out, tick{X: s.x(t), Label: t.Format(st.layout)})
			}
		}
		if len(out) <= maxTicks {
			return out
		}
	}
	return nil
}
