package timeline

import (
	"cmp"
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
