package timeline

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"

	"github.com/tkgraph/backfill/graph"
)

// The page's times: the slider and the data attributes carry Unix milliseconds, the text RFC 3339
// in UTC.
const (
	stamp = "2006-01-02T15:04:05Z07:00"
	short = "2006-01-02 15:04"
)

// forever is the end of the last version's record-time range, in milliseconds.
const forever = int64(1) << 53

type pageView struct {
	Entity   string
	KnownAt  string
	Steps    []stepView
	Step     int // the slider's start
	Sections []sectionView
}

type stepView struct {
	MS    int64
	Label string
}

type sectionView struct {
	Group    string
	Height   float64
	AxisY    float64 // the bottom of the last row
	Segments string  // the scale, for the script and tests (scale.attr)
	Breaks   [][2]float64
	Ticks    []tick
	KnownX   float64
	Rows     []rowView
}

type rowView struct {
	Y        float64
	Label    string
	Tooltip  string
	Unknown  bool // not known at the start step
	Versions []barView
	// The record-time line: from the dot (created_at) to the cross (expired_at) or the right edge.
	Created   string
	CreatedX  float64
	CreatedMS int64
	Expired   string // "" while the system holds the fact as current
	ExpiredX  float64
	ExpiredMS int64
	LineX1    float64
	Later     bool // the cross is later than the start step
}

// barView is the bar of one version: from valid_at to invalid_at as the system knew them between
// record times FromMS and ToMS.
type barView struct {
	X, W, End float64 // End: the x of the right end (the arrow's tip when open)
	OpenStart bool
	OpenEnd   bool
	Point     bool   // an event: valid_at = invalid_at, drawn as a diamond at X
	ValidAt   string // "" when unknown
	InvalidAt string // "" when open
	FromMS    int64
	ToMS      int64
	Shown     bool // the version the start step shows
}

// build lays a page out.
func build(p Page) pageView {
	sc := newScale(times(p))
	k := p.KnownAt.UTC()
	v := pageView{Entity: p.Entity, KnownAt: k.Format(stamp)}
	v.Steps, v.Step = steps(p, k)
	for _, s := range p.Sections {
		sv := sectionView{Group: s.Group, Segments: sc.attr(), Breaks: sc.breaks(), Ticks: sc.ticks(), KnownX: sc.x(k)}
		facts := slices.Clone(s.Facts)
		slices.SortStableFunc(facts, compareFacts)
		for i, f := range facts {
			sv.Rows = append(sv.Rows, row(sc, f, headH+float64(i)*rowH, k))
		}
		sv.AxisY = headH + float64(len(facts))*rowH
		sv.Height = sv.AxisY + 8
		v.Sections = append(v.Sections, sv)
	}
	return v
}

// compareFacts orders rows by valid_at (unknown first), then created_at, then uuid.
func compareFacts(a, b Fact) int {
	switch {
	case a.ValidAt == nil && b.ValidAt != nil:
		return -1
	case a.ValidAt != nil && b.ValidAt == nil:
		return 1
	case a.ValidAt != nil && !a.ValidAt.Equal(*b.ValidAt):
		return a.ValidAt.Compare(*b.ValidAt)
	case !a.CreatedAt.Equal(b.CreatedAt):
		return a.CreatedAt.Compare(b.CreatedAt)
	}
	return strings.Compare(a.UUID, b.UUID)
}

// steps are the slider's positions: every record time of the page and the known-at time, in
// order; start is the index of k.
func steps(p Page, k time.Time) ([]stepView, int) {
	seen := map[int64]bool{}
	var ms []int64
	add := func(t time.Time) {
		if m := t.UnixMilli(); !seen[m] {
			seen[m] = true
			ms = append(ms, m)
		}
	}
	for _, s := range p.Sections {
		for _, f := range s.Facts {
			for _, v := range versions(f) {
				add(v.from)
			}
		}
	}
	add(k)
	slices.Sort(ms)
	out := make([]stepView, len(ms))
	start := 0
	for i, m := range ms {
		out[i] = stepView{MS: m, Label: time.UnixMilli(m).UTC().Format(short) + " UTC"}
		if m == k.UnixMilli() {
			start = i
		}
	}
	return out, start
}

// row lays out one fact at y, showing the version in force at k.
func row(sc scale, f Fact, y float64, k time.Time) rowView {
	vs := versions(f)
	cur := inForce(vs, k)
	r := rowView{Y: y, Label: label(f.Fact.Fact), Unknown: cur < 0}
	for i, v := range vs {
		b := bar(sc, v)
		b.Shown = i == cur || cur < 0 && i == len(vs)-1
		r.Versions = append(r.Versions, b)
	}
	first, last := vs[0], vs[len(vs)-1]
	r.Created, r.CreatedX, r.CreatedMS = first.from.UTC().Format(stamp), sc.x(first.from), first.from.UnixMilli()
	r.LineX1 = plotX1
	if last.expiredAt != nil {
		e := *last.expiredAt
		r.Expired, r.ExpiredX, r.ExpiredMS, r.LineX1 = e.UTC().Format(stamp), sc.x(e), e.UnixMilli(), sc.x(e)
		r.Later = e.After(k)
	}
	r.Tooltip = tooltip(f, last)
	return r
}

func bar(sc scale, v version) barView {
	b := barView{X: plotX0, End: plotX1, OpenStart: v.validAt == nil, OpenEnd: v.invalidAt == nil,
		FromMS: v.from.UnixMilli(), ToMS: forever}
	if v.validAt != nil {
		b.X, b.ValidAt = sc.x(*v.validAt), v.validAt.UTC().Format(stamp)
	}
	if v.invalidAt != nil {
		b.End, b.InvalidAt = sc.x(*v.invalidAt), v.invalidAt.UTC().Format(stamp)
	}
	if !v.to.IsZero() {
		b.ToMS = v.to.UnixMilli()
	}
	b.W = round1(max(b.End-b.X, 2))
	b.Point = v.validAt != nil && graph.SameTime(v.validAt, v.invalidAt)
	return b
}

// tooltip is the sentence and the four dates of a fact as known now.
func tooltip(f Fact, v version) string {
	when := func(t *time.Time, open string) string {
		if t == nil {
			return open
		}
		return t.UTC().Format(short)
	}
	s := fmt.Sprintf("%s\ntrue: %s → %s\nlearned: %s", f.Fact.Fact, when(v.validAt, "date unknown"),
		when(v.invalidAt, "present"), f.CreatedAt.UTC().Format(short))
	if v.validAt != nil && graph.SameTime(v.validAt, v.invalidAt) {
		s = fmt.Sprintf("%s\nhappened: %s (an event)\nlearned: %s", f.Fact.Fact, when(v.validAt, ""), f.CreatedAt.UTC().Format(short))
	}
	if v.expiredAt != nil {
		s += "; learned of its end: " + when(v.expiredAt, "")
	}
	return s + "\n" + f.Name + " (" + f.Source + " → " + f.Target + ")"
}

// label shortens a sentence to labelMax columns (a wide rune, such as Hangul, counts 2).
func label(s string) string {
	cols := func(r rune) int {
		if k := width.LookupRune(r).Kind(); k == width.EastAsianWide || k == width.EastAsianFullwidth {
			return 2
		}
		return 1
	}
	n, cut := 0, -1
	for i, r := range s {
		if n+cols(r) > labelMax-1 && cut < 0 {
			cut = i
		}
		n += cols(r)
	}
	if n <= labelMax || cut < 0 {
		return s
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}
