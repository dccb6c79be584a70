package evaluation

import (
	"bytes"
	"context"
	"html"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
)

// TestHTMLPage draws the modes corpus's retrieval, a gold report and paired changes, and checks
// that every chart is there, that the numbers are the reports', and that text from the graph or
// a file is escaped.
func TestHTMLPage(t *testing.T) {
	ds, err := ReadDataset(context.Background(), "locomo", strings.NewReader(modesLoCoMo), nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshots.OpenStore(snapshotstest.Store(t, modesGraph()), false)
	rep, err := Run(context.Background(), snap, Options{Dataset: ds, Embedder: modesEmbedder, Ks: []int{1, 2}, MinCosine: DefaultMinCosine})
	if err != nil {
		t.Fatal(err)
	}
	rep.Retrieval.Categories[0].Category = `<script>alert("x")</script>`
	rep.Gold = &GoldReport{File: "g.yaml", GoldFacts: 4, GraphFacts: 5, Matched: 3, Precision: 0.6, Recall: 0.75, F1: 2 * 0.6 * 0.75 / 1.35,
		Spread: &Spread{Precision: [2]float64{0.2, 0.9}, Recall: [2]float64{0.3, 1}, F1: [2]float64{0.25, 0.9}}, ValidAtCorrect: 2,
		InvalidAtCorrect: 3, IntervalCorrect: 2, MatchedOpen: 2, MatchedClosed: 1, ClosuresMissed: 1}
	gold := &GoldChange{Episodes: 4, Resamples: Resamples, A: Scores{F1: 0.5}, B: Scores{F1: 0.667}, Change: Scores{F1: 0.167},
		Low: Scores{F1: 0.05}, High: Scores{F1: 0.3}, BHigher: 0.98}
	var b bytes.Buffer
	if err := WriteHTML(&b, HTMLPage{Title: "eval <b>", Facts: [][2]string{{"graph", "a&b"}},
		Reports: []NamedReport{{Name: "this graph", Report: rep}}, Gold: gold}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>eval &lt;b&gt;</title>", "a&amp;b", "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	text := html.UnescapeString(page) // html/template writes "+" as "&#43;"
	for _, want := range []string{
		"this graph: evidence (turn) recall@k against locomo", "this graph: session recall@k", "this graph: answer recall@k",
		"Gold facts: precision, recall and F1", "Gold facts: intervals and closures", "Gold scores of B against A, paired over 4 episodes",
		"this graph: facts+episodes against episodes-hybrid, paired question by question",
		"0.600 (0.200–0.900)", // precision with its bootstrap interval
		"0.500 (2/4)",         // hybrid's evidence R@1 ... or any share with counts
		"F1 0.500 → 0.667",    // the gold change
		"+0.167 (+0.050 … +0.300) higher",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>", "ZgotmplZ", "http://", "https://"} {
		if bad == "http://" && strings.Count(page, bad) == strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
			continue
		}
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	for _, mode := range modes {
		if !strings.Contains(text, ">"+mode+"</span>") {
			t.Errorf("the legend lacks mode %s", mode)
		}
	}
}
