package timeline

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/graph"
)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t
}

func ptr(t time.Time) *time.Time { return &t }

// TestScaleBreaksLongGaps: one old date gets its own segment behind a break, every time maps
// into the plot in order, and a time in the gap falls inside the break.
func TestScaleBreaksLongGaps(t *testing.T) {
	ts := []time.Time{day("2021-01-01"), day("2024-01-08"), day("2024-03-02"), day("2024-06-01")}
	sc := newScale(ts)
	if len(sc.segs) != 2 {
		t.Fatalf("segments %+v, want 2 (a break between 2021 and 2024)", sc.segs)
	}
	if sc.segs[0].x0 != plotX0 || sc.segs[1].x1 != plotX1 || sc.segs[1].x0-sc.segs[0].x1 != breakW {
		t.Errorf("segments %+v do not fill the plot with one break", sc.segs)
	}
	prev := 0.0
	for _, x := range []time.Time{day("2020-01-01"), ts[0], day("2022-06-01"), ts[1], ts[2], ts[3], day("2030-01-01")} {
		if got := sc.x(x); got < prev || got < plotX0 || got > plotX1 {
			t.Errorf("x(%s) = %g: out of order or out of the plot", x.Format(time.DateOnly), got)
		} else {
			prev = got
		}
	}
	if x := sc.x(day("2022-06-01")); x <= sc.segs[0].x1 || x >= sc.segs[1].x0 {
		t.Errorf("a time in the gap maps to %g, outside the break", x)
	}
	if one := newScale(ts[1:]); len(one.segs) != 1 {
		t.Errorf("five months: %d segments, want 1", len(one.segs))
	}
	for _, tk := range sc.ticks() {
		if tk.X < plotX0 || tk.X > plotX1 {
			t.Errorf("tick %+v outside the plot", tk)
		}
	}
}

// TestVersionInForce: the version shown at a known-at time is the last one recorded by then.
func TestVersionInForce(t *testing.T) {
	f := Fact{Fact: graph.Fact{UUID: "f", CreatedAt: day("2024-01-08")}, Versions: []graph.FactVersion{
		{Seq: 1, RecordTime: day("2024-03-10"), ValidAt: ptr(day("2024-01-08")), InvalidAt: ptr(day("2024-03-02")), ExpiredAt: ptr(day("2024-03-10"))},
		{Seq: 0, RecordTime: day("2024-01-08"), ValidAt: ptr(day("2024-01-08"))},
	}}
	vs := versions(f)
	for k, want := range map[string]int{"2024-01-01": -1, "2024-01-08": 0, "2024-03-01": 0, "2024-03-10": 1, "2025-01-01": 1} {
		if got := inForce(vs, day(k)); got != want {
			t.Errorf("in force at %s: %d, want %d", k, got, want)
		}
	}
	sc := newScale([]time.Time{day("2024-01-01"), day("2024-04-01")})
	r := row(sc, f, 0, day("2024-03-01"))
	if !r.Versions[0].Shown || r.Versions[1].Shown || !r.Versions[0].OpenEnd || r.Versions[1].OpenEnd || !r.Later {
		t.Errorf("known at 2024-03-01: %+v, want the open first version shown and the end not yet known", r)
	}
	if r := row(sc, f, 0, day("2023-12-01")); !r.Unknown || !r.Versions[1].Shown {
		t.Errorf("known before it was learned: %+v, want the row greyed with its last version", r)
	}
}

func TestLabel(t *testing.T) {
	for in, want := range map[string]string{
		"Alice works at Kakao.":         "Alice works at Kakao.",
		strings.Repeat("a", labelMax):   strings.Repeat("a", labelMax),
		strings.Repeat("a", labelMax+1): strings.Repeat("a", labelMax-1) + "…",
		strings.Repeat("가", 30):         strings.Repeat("가", labelMax/2-1) + "…",
	} {
		if got := label(in); got != want || !utf8.ValidString(got) {
			t.Errorf("label(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPageIsSelfContained: the page fetches nothing (no src, href, link, import or URL other
// than the SVG namespace and the page's own gradient), escapes what it shows, keeps Hangul as
// it is, and is the same for the same input.
func TestPageIsSelfContained(t *testing.T) {
	p := Page{Entity: "지훈 <b>", KnownAt: day("2024-03-01"), Sections: []Section{{Group: "jihoon", Facts: []Fact{
		{Fact: graph.Fact{UUID: "a", Name: "WORKS_AT", Fact: "지훈은 카카오에서 일한다 <script>.", CreatedAt: day("2024-01-15"),
			ValidAt: ptr(day("2024-01-15")), InvalidAt: ptr(day("2024-03-02")), ExpiredAt: ptr(day("2024-03-11"))}, Source: "지훈", Target: "카카오"},
	}}}}
	var a, b bytes.Buffer
	if err := Write(&a, p); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, p); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("two writes differ (%v)", err)
	}
	html := a.String()
	for _, bad := range []string{" src=", " href=", "<link", "@import", "<script>.", "<b>"} {
		if strings.Contains(html, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	for _, u := range regexp.MustCompile(`(https?:)?//[^"'\s)]+|url\([^)]*\)`).FindAllString(html, -1) {
		if u != "http://www.w3.org/2000/svg" && u != "url(#fade)" && !strings.HasPrefix(u, "//") {
			t.Errorf("page refers to %q", u)
		}
	}
	for _, want := range []string{`<meta charset="utf-8">`, "지훈은 카카오에서 일한다 &lt;script&gt;.", "Timeline of “지훈 &lt;b&gt;”"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestBreakAt: long gaps that dwarf the rest become breaks, moderate ones do not.
func TestBreakAt(t *testing.T) {
	for _, tc := range []struct {
		days []string
		want []int
	}{
		{[]string{"2021-01-01", "2024-01-08", "2024-06-01"}, []int{1}},
		{[]string{"2024-01-08", "2024-03-02", "2024-06-01"}, nil},
		{[]string{"2015-01-01", "2018-01-01", "2024-01-01", "2024-05-01"}, []int{1, 2}},
		{[]string{"2024-01-01"}, nil},
	} {
		var ts []time.Time
		for _, d := range tc.days {
			ts = append(ts, day(d))
		}
		got := breakAt(ts)
		if len(got) != len(tc.want) {
			t.Errorf("%v: breaks %v, want before %v", tc.days, got, tc.want)
		}
		for _, i := range tc.want {
			if !got[i] {
				t.Errorf("%v: breaks %v, want before %v", tc.days, got, tc.want)
			}
		}
	}
}

// TestEventIsAPoint: a fact whose valid_at equals its invalid_at (an event) is drawn as a diamond,
// not a bar, and its tooltip says when it happened.
func TestEventIsAPoint(t *testing.T) {
	at := day("2024-02-02")
	f := Fact{Fact: graph.Fact{UUID: "jeju", Fact: "Alice visited Jeju (2024-02-02).", Name: "VISITED", ValidAt: ptr(at),
		InvalidAt: ptr(at), CreatedAt: day("2024-02-12")}, Source: "Alice", Target: "Jeju"}
	var b bytes.Buffer
	if err := Write(&b, Page{Entity: "Alice", Sections: []Section{{Group: "alice", Facts: []Fact{f}}}, KnownAt: day("2024-03-01")}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if !strings.Contains(html, `class="bar point"`) || strings.Contains(html, `<rect class="bar`) {
		t.Errorf("an event is not drawn as a point alone:\n%s", html)
	}
	if !strings.Contains(html, "happened: 2024-02-02 00:00 (an event)") {
		t.Errorf("the tooltip does not say when the event happened")
	}
}
