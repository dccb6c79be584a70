package evaluation

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
)

// HTMLPage is what WriteHTML draws: one or two eval reports (an eval, or the A and B sides of a
// diff), the paired changes between two graphs when there are any, and a table of plain facts
// about the page (the diff's totals).
type HTMLPage struct {
	Title   string
	Facts   [][2]string // label, value: drawn as a table under the title
	Reports []NamedReport
	// Gold and Retrieval are paired changes from A to B (eval --against, diff --gold); nil:
	// none.
	Gold      *GoldChange
	Retrieval *RetrievalChange
}

// NamedReport is one report of a page with the name its charts give it ("A", "B", the graph).
type NamedReport struct {
	Name   string
	Report *Report
}

//go:embed htmlpage.html
var htmlPageText string

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"num": func(f float64) string { return fmt.Sprintf("%.1f", f) },
}).Parse(htmlPageText))

// WriteHTML writes the page as one self-contained HTML document: inline CSS and SVG charts,
// no script, nothing fetched. Every text of the reports is escaped by html/template.
func WriteHTML(w io.Writer, p HTMLPage) error {
	if err := htmlPage.Execute(w, buildPage(p)); err != nil {
		return fmt.Errorf("writing the HTML page: %w", err)
	}
	return nil
}

// Chart geometry, in SVG user units.
const (
	chartW   = 1180.0
	labelW   = 150.0 // left of the plot: row labels
	barH     = 8.0
	barGap   = 2.0
	groupGap = 12.0
	topH     = 28.0 // above the first row: the title of the panel and the axis
)

// palette colours the series of a chart (modes, or the sides A and B), in order.
var palette = []string{"#2563eb", "#16a34a", "#f59e0b", "#9333ea", "#db2777", "#0891b2", "#64748b"}

type pageView struct {
	Height  int // about the page's height in CSS pixels at 1260 wide, for screenshots
	Title   string
	Facts   [][2]string
	Notes   []string
	Charts  []chartView
	Forests []forestView
}

// chartView is one SVG of horizontal bars with 95% interval whiskers: panels side by side, each
// with the same rows (groups of bars, one bar per series).
type chartView struct {
	Title  string
	Note   string
	W, H   float64
	Legend []legendItem
	Panels []panelView
}

type legendItem struct{ Name, Color string }

type panelView struct {
	Title  string
	Values bool
	X0, X1 float64 // the plot, 0 to 1
	Ticks  []tickView
	Groups []groupView
}

type tickView struct {
	X     float64
	Label string
}

type groupView struct {
	Label string
	Y     float64 // the middle of the group
	Bars  []barView
}

type barView struct {
	Y, W, Lo, Hi float64 // top, width from X0, interval ends
	Color, Text  string
	Title        string
}

// forestView is one SVG of paired changes: a point at each change, a whisker over its 95%
// interval, a line at 0.
type forestView struct {
	Title  string
	Note   string
	W, H   float64
	X0, X1 float64
	ZeroX  float64
	Ticks  []tickView
	Rows   []forestRow
}

type forestRow struct {
	Label        string
	Y            float64
	X, Lo, Hi    float64
	Text, Colour string
}

// series is one bar of each group: a name and, per group, the share and its interval (nil
// when the series has no value there).
type series struct {
	name   string
	values []*shareView
}

type shareView struct {
	v      float64
	lo, hi float64
	text   string
}

func share(hits, n int) *shareView {
	if n == 0 {
		return nil
	}
	iv := wilson(hits, n)
	return &shareView{v: float64(hits) / float64(n), lo: iv[0], hi: iv[1], text: fmt.Sprintf("%.3f (%d/%d)", float64(hits)/float64(n), hits, n)}
}

func buildPage(p HTMLPage) pageView {
	v := pageView{Title: p.Title, Facts: p.Facts}
	for _, nr := range p.Reports {
		if rt := nr.Report.Retrieval; rt != nil {
			v.Charts = append(v.Charts, retrievalCharts(nr.Name, rt)...)
		}
	}
	if gc := goldCharts(p.Reports); gc != nil {
		v.Charts = append(v.Charts, gc...)
	}
	if p.Gold != nil {
		v.Forests = append(v.Forests, goldForest(p.Gold))
	}
	if p.Retrieval != nil {
		v.Forests = append(v.Forests, retrievalForest("Retrieval of B against A, paired question by question", p.Retrieval.Evidence,
			p.Retrieval.Session, p.Retrieval.Answer, p.Retrieval.Questions, p.Retrieval.Resamples))
	}
	for _, nr := range p.Reports {
		if rt := nr.Report.Retrieval; rt != nil {
			for _, c := range rt.Paired {
				v.Forests = append(v.Forests, retrievalForest(fmt.Sprintf("%s: %s against %s, paired question by question", nr.Name, c.B, c.A),
					c.Evidence, c.Session, c.Answer, 0, Resamples))
			}
		}
	}
	if len(v.Charts) == 0 && len(v.Forests) == 0 {
		v.Notes = append(v.Notes, "Nothing to chart: the report has no retrieval, gold scores or paired changes.")
	}
	h := 90 + 22*len(v.Facts) + 30*len(v.Notes)
	for _, c := range v.Charts {
		h += int(c.H) + 120
	}
	for _, f := range v.Forests {
		h += int(f.H) + 100
	}
	v.Height = h
	return v
}

// retrievalCharts are the recall charts of one report: evidence, session and answer recall,
// one panel per k, a group of bars per category (then "all"), one bar per mode.
func retrievalCharts(name string, rt *RetrievalReport) []chartView {
	modeRows := [][]Recall{rt.Categories}
	names := []string{ModeFacts}
	for _, b := range rt.Baselines {
		modeRows = append(modeRows, b.Categories)
		names = append(names, b.Mode)
	}
	var cats []string
	for _, c := range rt.Categories {
		cats = append(cats, c.Category)
	}
	var out []chartView
	for _, kind := range []string{"evidence (turn)", "session", "answer"} {
		var panels []panelView
		nk := len(rt.Ks)
		pw := (chartW - float64(nk-1)*20) / float64(nk)
		for ki, k := range rt.Ks {
			var ss []series
			for m, rows := range modeRows {
				s := series{name: names[m]}
				for _, c := range cats {
					i := slices.IndexFunc(rows, func(r Recall) bool { return r.Category == c })
					if i < 0 || ki >= len(rows[i].EvidenceHits) {
						s.values = append(s.values, nil)
						continue
					}
					r := rows[i]
					switch kind {
					case "session":
						if ki < len(r.SessionHits) {
							s.values = append(s.values, share(r.SessionHits[ki], r.WithEvidence))
						} else {
							s.values = append(s.values, nil)
						}
					case "answer":
						s.values = append(s.values, share(r.AnswerHits[ki], r.WithAnswer))
					default:
						s.values = append(s.values, share(r.EvidenceHits[ki], r.WithEvidence))
					}
				}
				ss = append(ss, s)
			}
			x0 := float64(ki) * (pw + 20)
			panels = append(panels, panel(fmt.Sprintf("R@%d", k), x0, x0+pw, cats, ss, ki == 0, nk == 1))
		}
		c := chart(fmt.Sprintf("%s: %s recall@k against %s, by category and mode", name, kind, rt.Dataset), panels, names)
		c.Note = "Bars: the share of questions; whiskers: its 95% Wilson interval; hover a bar for its counts. Every mode at k items but facts+episodes-2k (2k)."
		out = append(out, c)
	}
	return out
}

// goldCharts are the gold scores of the reports that have them, side by side (one series per
// report): precision, recall and F1 with their bootstrap intervals, then the temporal columns
// with Wilson intervals.
func goldCharts(reps []NamedReport) []chartView {
	var gs []*GoldReport
	var names []string
	for _, nr := range reps {
		if nr.Report.Gold != nil {
			gs, names = append(gs, nr.Report.Gold), append(names, nr.Name)
		}
	}
	if len(gs) == 0 {
		return nil
	}
	scoreRows := []string{"precision", "recall", "F1"}
	var scoreSeries, timeSeries []series
	timeRows := []string{"valid_at right", "invalid_at right", "both right", "wrongly closed", "closures missed", "closed at the wrong time"}
	for i, g := range gs {
		s := series{name: names[i]}
		for r, v := range []float64{g.Precision, g.Recall, g.F1} {
			sv := &shareView{v: v, lo: v, hi: v, text: fmt.Sprintf("%.3f", v)}
			if sp := g.Spread; sp != nil {
				iv := [][2]float64{sp.Precision, sp.Recall, sp.F1}[r]
				sv.lo, sv.hi = iv[0], iv[1]
				sv.text += fmt.Sprintf(" (%.3f–%.3f)", iv[0], iv[1])
			}
			s.values = append(s.values, sv)
		}
		scoreSeries = append(scoreSeries, s)
		t := series{name: names[i], values: []*shareView{share(g.ValidAtCorrect, g.Matched), share(g.InvalidAtCorrect, g.Matched),
			share(g.IntervalCorrect, g.Matched), share(g.WronglyClosed, g.MatchedOpen), share(g.ClosuresMissed, g.MatchedClosed),
			share(g.ClosedWrongTime, g.MatchedClosed)}}
		timeSeries = append(timeSeries, t)
	}
	a := chart("Gold facts: precision, recall and F1", []panelView{panel("", 0, chartW, scoreRows, scoreSeries, true, true)}, names)
	a.Note = "Whiskers: the 95% bootstrap interval over the episodes."
	b := chart("Gold facts: intervals and closures of the matched facts", []panelView{panel("", 0, chartW, timeRows, timeSeries, true, true)}, names)
	b.Note = "Shares of the matched facts (wrongly closed: of those open in the gold; closures missed and closed at the wrong time: of those closed in the gold); whiskers: 95% Wilson intervals. Lower is better for the last three."
	return []chartView{a, b}
}

// panel lays out one panel: rows of groups, one bar per series. Labels puts the row labels
// left of it; values writes each bar's value right of it (one panel to a chart: side by side the
// values are in the bars' tooltips).
func panel(title string, x0, x1 float64, rows []string, ss []series, labels, values bool) panelView {
	p := panelView{Title: title, X0: x0 + labelW, X1: x1 - 10, Values: values}
	if !labels {
		p.X0 = x0 + 10
	}
	if values {
		p.X1 = x1 - 190
	}
	span := p.X1 - p.X0
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		p.Ticks = append(p.Ticks, tickView{X: round1(p.X0 + f*span), Label: fmt.Sprintf("%.2g", f)})
	}
	gh := float64(len(ss))*(barH+barGap) - barGap
	y := topH
	for r, label := range rows {
		g := groupView{Y: round1(y + gh/2)}
		if labels {
			g.Label = label
		}
		for i, s := range ss {
			sv := s.values[r]
			by := y + float64(i)*(barH+barGap)
			if sv == nil {
				continue
			}
			g.Bars = append(g.Bars, barView{Y: round1(by), W: round1(math.Max(sv.v*span, 0)), Lo: round1(p.X0 + sv.lo*span),
				Hi: round1(p.X0 + sv.hi*span), Color: palette[i%len(palette)], Text: sv.text,
				Title: fmt.Sprintf("%s, %s: %s", label, s.name, sv.text)})
		}
		p.Groups = append(p.Groups, g)
		y += gh + groupGap
	}
	return p
}

// chart puts panels of the same rows into one SVG with a legend of the series.
func chart(title string, panels []panelView, names []string) chartView {
	c := chartView{Title: title, W: chartW, Panels: panels}
	for i, n := range names {
		c.Legend = append(c.Legend, legendItem{Name: n, Color: palette[i%len(palette)]})
	}
	for _, p := range panels {
		if n := len(p.Groups); n > 0 {
			last := p.Groups[n-1]
			c.H = math.Max(c.H, last.Y+float64(len(names))*(barH+barGap)/2+16)
		}
	}
	c.H = round1(c.H)
	return c
}

// forest lays out paired changes, one row each.
func forest(title, note string, rows []forestRow, lo, hi float64) forestView {
	m := math.Max(math.Max(math.Abs(lo), math.Abs(hi)), 0.05)
	m = math.Ceil(m*20) / 20
	f := forestView{Title: title, Note: note, W: chartW, X0: labelW + 60, X1: chartW - 200}
	x := func(v float64) float64 { return round1(f.X0 + (v+m)/(2*m)*(f.X1-f.X0)) }
	f.ZeroX = x(0)
	for _, t := range []float64{-m, -m / 2, 0, m / 2, m} {
		f.Ticks = append(f.Ticks, tickView{X: x(t), Label: fmt.Sprintf("%+.3g", t)})
	}
	for i, r := range rows {
		r.Y = topH + float64(i)*18 + 9
		r.X, r.Lo, r.Hi = x(r.X), x(r.Lo), x(r.Hi)
		f.Rows = append(f.Rows, r)
	}
	f.H = round1(topH + float64(len(rows))*18 + 14)
	return f
}

// changeRow is one paired change as a forest row (values, not yet positions).
func changeRow(label string, change, lo, hi float64, how string) forestRow {
	colour := "#6b7280"
	switch how {
	case "higher":
		colour = "#16a34a"
	case "lower":
		colour = "#dc2626"
	}
	return forestRow{Label: label, X: change, Lo: lo, Hi: hi, Colour: colour,
		Text: fmt.Sprintf("%+.3f (%+.3f … %+.3f) %s", change, lo, hi, how)}
}

func goldForest(g *GoldChange) forestView {
	var rows []forestRow
	lo, hi := 0.0, 0.0
	for _, r := range []struct {
		name           string
		a, b, d, l, hh float64
	}{{"precision", g.A.Precision, g.B.Precision, g.Change.Precision, g.Low.Precision, g.High.Precision},
		{"recall", g.A.Recall, g.B.Recall, g.Change.Recall, g.Low.Recall, g.High.Recall},
		{"F1", g.A.F1, g.B.F1, g.Change.F1, g.Low.F1, g.High.F1}} {
		row := changeRow(fmt.Sprintf("%s %.3f → %.3f", r.name, r.a, r.b), r.d, r.l, r.hh, directionWord(r.l, r.hh))
		rows = append(rows, row)
		lo, hi = math.Min(lo, r.l), math.Max(hi, r.hh)
	}
	return forest(fmt.Sprintf("Gold scores of B against A, paired over %d episodes", g.Episodes),
		fmt.Sprintf("Points: the change B − A; whiskers: its 95%% interval over %d paired resamples of the episodes. %s", g.Resamples, g.Verdict()), rows, lo, hi)
}

func retrievalForest(title string, ev, sess, ans []RecallChange, questions, resamples int) forestView {
	var rows []forestRow
	lo, hi := 0.0, 0.0
	for _, kind := range []struct {
		name string
		rs   []RecallChange
	}{{"evidence", ev}, {"session", sess}, {"answer", ans}} {
		for _, r := range kind.rs {
			rows = append(rows, changeRow(fmt.Sprintf("%s R@%d %.3f → %.3f", kind.name, r.K, r.A, r.B), r.Change, r.Low, r.High,
				directionWord(r.Low, r.High)))
			lo, hi = math.Min(lo, r.Low), math.Max(hi, r.High)
		}
	}
	note := fmt.Sprintf("Points: the change B − A; whiskers: its 95%% interval over %d paired resamples of the questions", resamples)
	if questions > 0 {
		note += fmt.Sprintf(" (%d questions)", questions)
	}
	return forest(title, note+"; green or red: the interval leaves out 0.", rows, lo, hi)
}

// directionWord says which side of 0 an interval lies on: "higher", "lower", or "" when it holds
// 0.
func directionWord(lo, hi float64) string {
	switch {
	case lo > 0:
		return "higher"
	case hi < 0:
		return "lower"
	}
	return ""
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
