package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// drawnFact is a row of a timeline page as a browser would read it.
type drawnFact struct {
	sentence         string // the first line of the row's <title>
	unknown          bool   // greyed: not known at the page's known-at time
	bar              map[string]string
	created, expired map[string]string // the markers' attributes (expired nil when absent)
}

// readTimeline parses a timeline page with an HTML5 parser and returns its chart's segments and
// its rows by sentence, each with the bar of the version it shows.
func readTimeline(t *testing.T, path string) (string, map[string]drawnFact) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := html.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	attrs := func(n *html.Node) map[string]string {
		m := map[string]string{}
		for _, a := range n.Attr {
			m[a.Key] = a.Val
		}
		return m
	}
	hasClass := func(n *html.Node, c string) bool {
		return n.Type == html.ElementNode && strings.Contains(" "+attrs(n)["class"]+" ", " "+c+" ")
	}
	var segments string
	rows := map[string]drawnFact{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "svg" && hasClass(n, "chart") {
			segments = attrs(n)["data-segments"]
		}
		if n.Type == html.ElementNode && n.Data == "g" && hasClass(n, "fact") {
			d := drawnFact{unknown: hasClass(n, "unknown")}
			for c := range n.Descendants() {
				switch {
				case c.Type == html.ElementNode && c.Data == "title":
					d.sentence, _, _ = strings.Cut(c.FirstChild.Data, "\n")
				case hasClass(c, "version") && !hasClass(c, "hidden"):
					for b := range c.Descendants() {
						if hasClass(b, "bar") {
							d.bar = attrs(b)
						}
					}
				case hasClass(c, "created"):
					d.created = attrs(c)
				case hasClass(c, "expired"):
					d.expired = attrs(c)
				}
			}
			rows[d.sentence] = d
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return segments, rows
}

// scaleX maps an RFC 3339 time onto a chart as its data-segments say (as the page's script does).
func scaleX(t *testing.T, segments, when string) float64 {
	t.Helper()
	at, err := time.Parse(time.RFC3339, when)
	if err != nil {
		t.Fatal(err)
	}
	k := float64(at.UnixMilli())
	var segs [][4]float64
	for _, s := range strings.Fields(segments) {
		var g [4]float64
		for i, f := range strings.Split(s, ":") {
			g[i], _ = strconv.ParseFloat(f, 64)
		}
		segs = append(segs, g)
	}
	for i, g := range segs {
		if k <= g[1] {
			if k < g[0] {
				p := segs[i-1]
				return p[3] + (k-p[1])/(g[0]-p[1])*(g[2]-p[3])
			}
			return g[2] + (k-g[0])/(g[1]-g[0])*(g[3]-g[2])
		}
	}
	return segs[len(segs)-1][3]
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestTimelineOfTheEmployerChange draws the demo's Alice and 지훈 and checks, in the parsed HTML,
// the bars, markers and dates of the employer change: Kakao valid until 2024-03-02 and known to
// have ended from 2024-03-10 (the episode that told it), Naver from 2024-03-02, open; and, as known
// on 2024-03-01, Kakao still open and Naver not yet known. Without --out the page goes beside
// the checkpoint.
func TestTimelineOfTheEmployerChange(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	ck := filepath.Join(dir, "demo.db")
	mustBackfill(t, exitOK, "run", "jobs/examples/demo.yaml", "--checkpoint", ck)
	draw := func(name, group, entity string, extra ...string) (string, map[string]drawnFact) {
		out := filepath.Join(dir, name+".html")
		mustBackfill(t, exitOK, append([]string{"timeline", "jobs/examples/demo.yaml", "--checkpoint", ck,
			"--group", group, "--entity", entity, "--out", out}, extra...)...)
		return readTimeline(t, out)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 0.2 {
			t.Errorf("%s at x=%g, want %g", what, got, want)
		}
	}
	segs, rows := draw("alice", "alice", "alice") // any case
	if len(rows) != 13 {
		t.Errorf("%d rows, want Alice's 13 facts (the past-tense Kakao fact merged into the present one)", len(rows))
	}
	kakao, naver := rows["Alice works at Kakao."], rows["Alice works at Naver (since 2024-03-02)."]
	if kakao.bar == nil || naver.bar == nil {
		t.Fatalf("rows %v lack the employer facts", rows)
	}
	for _, c := range []struct{ what, got, want string }{
		{"Kakao valid_at", kakao.bar["data-valid-at"], "2024-01-08T14:01:00Z"},
		{"Kakao invalid_at", kakao.bar["data-invalid-at"], "2024-03-02T00:00:00Z"},
		{"Kakao created_at", kakao.created["data-created-at"], "2024-01-08T14:01:00Z"},
		{"Kakao expired_at", kakao.expired["data-expired-at"], "2024-03-10T16:01:00Z"},
		{"Naver valid_at", naver.bar["data-valid-at"], "2024-03-02T00:00:00Z"},
		{"Naver invalid_at", naver.bar["data-invalid-at"], ""},
		{"Naver created_at", naver.created["data-created-at"], "2024-03-10T16:01:00Z"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	kx, kw := num(t, kakao.bar["x"]), num(t, kakao.bar["width"])
	near("Kakao's bar start", kx, scaleX(t, segs, "2024-01-08T14:01:00Z"))
	near("Kakao's bar end", kx+kw, scaleX(t, segs, "2024-03-02T00:00:00Z"))
	near("Naver's bar start", num(t, naver.bar["x"]), kx+kw)
	near("Naver's open bar end", num(t, naver.bar["x"])+num(t, naver.bar["width"]), 1170)
	near("Kakao's created marker", num(t, kakao.created["cx"]), kx)
	if strings.Contains(kakao.bar["class"], "open-end") || !strings.Contains(naver.bar["class"], "open-end") || naver.expired != nil {
		t.Errorf("Kakao %v should be closed, Naver %v open without an expired marker", kakao.bar, naver.bar)
	}
	if kakao.unknown || naver.unknown || strings.Contains(kakao.expired["class"], "later") {
		t.Errorf("as known now, nothing is greyed: Kakao %+v, Naver %+v", kakao, naver)
	}

	_, past := draw("alice-past", "alice", "Alice", "--known-at", "2024-03-01")
	kakao, naver = past["Alice works at Kakao."], past["Alice works at Naver (since 2024-03-02)."]
	if kakao.unknown || kakao.bar["data-invalid-at"] != "" || !strings.Contains(kakao.bar["class"], "open-end") ||
		!strings.Contains(kakao.expired["class"], "later") {
		t.Errorf("as known on 2024-03-01, Kakao should be open with its end not yet known: %+v", kakao)
	}
	if !naver.unknown {
		t.Errorf("as known on 2024-03-01, Naver should be greyed: %+v", naver)
	}

	// Without --out the page goes beside the checkpoint, not into the working directory.
	mustBackfill(t, exitOK, "timeline", "jobs/examples/demo.yaml", "--checkpoint", ck, "--group", "alice", "--entity", "Alice")
	if _, rows := readTimeline(t, ck+".timeline-Alice.html"); len(rows) != 13 {
		t.Errorf("%d rows beside the checkpoint, want Alice's 13 facts", len(rows))
	}
	if _, err := os.Stat("timeline-Alice.html"); err == nil {
		t.Errorf("timeline without --out wrote into the working directory")
	}

	_, jihoon := draw("jihoon", "jihoon", "지훈은") // with a particle
	kakao, naver = jihoon["지훈은 카카오에서 일한다."], jihoon["지훈은 네이버에서 일한다 (2024-03-02부터)."]
	if kakao.bar["data-invalid-at"] != "2024-03-02T00:00:00Z" || naver.bar["data-valid-at"] != "2024-03-02T00:00:00Z" ||
		!strings.Contains(naver.bar["class"], "open-end") {
		t.Errorf("지훈: Kakao %v, Naver %v", kakao.bar, naver.bar)
	}
}

// TestDefaultTimelineOut: without --out the page is named after the checkpoint, beside it, or in
// the working directory for a store kept in object storage; the entity's separators become _.
func TestDefaultTimelineOut(t *testing.T) {
	for _, c := range []struct{ checkpoint, entity, want string }{
		{".backfill/demo/demo.db", "Alice", ".backfill/demo/demo.db.timeline-Alice.html"},
		{"/data/a b.db", "Acme Corp/EU", "/data/a b.db.timeline-Acme_Corp_EU.html"},
		{"s3://bucket/jobs/tickets.db", "지훈", "tickets.db.timeline-지훈.html"},
	} {
		if got := defaultTimelineOut(c.checkpoint, c.entity); got != c.want {
			t.Errorf("defaultTimelineOut(%q, %q) = %q, want %q", c.checkpoint, c.entity, got, c.want)
		}
	}
}
