package evaluation

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// questions makes n scored questions of group g with evidence and an answer; hits[i] says
// whether question i hits at every k.
func questions(hits []bool) *RetrievalReport {
	r := &RetrievalReport{Ks: []int{5, 10}}
	for i, h := range hits {
		r.PerQuestion = append(r.PerQuestion, QuestionScore{Group: "g", ID: fmt.Sprintf("q%02d", i), Category: "1",
			Evidence: true, Answer: true, EvidenceHits: []bool{h, h}, AnswerHits: []bool{false, h}})
	}
	return r
}

func TestCompareRetrieval(t *testing.T) {
	half := make([]bool, 20)
	for i := 0; i < 20; i += 2 {
		half[i] = true
	}
	all := slices.Repeat([]bool{true}, 20)
	oneMore := slices.Clone(half)
	oneMore[1] = true
	reordered := questions(half)
	slices.Reverse(reordered.PerQuestion)
	withApart := questions(half)
	withApart.PerQuestion = append(withApart.PerQuestion, QuestionScore{Group: "g", ID: "adv", Category: "5", Apart: true,
		Evidence: true, EvidenceHits: []bool{true, true}, AnswerHits: []bool{true, true}})
	for _, tc := range []struct {
		name   string
		a, b   *RetrievalReport
		want   string // beyond() of evidence R@5
		change float64
	}{
		{"the same questions in another order", questions(half), reordered, "the same", 0},
		{"an apart question only in B", questions(half), withApart, "the same", 0},
		{"one more hit", questions(half), questions(oneMore), "within the spread", 0.05},
		{"every question hits", questions(half), questions(all), "higher beyond the spread", 0.5},
		{"no question hits any more", questions(all), questions(make([]bool, 20)), "lower beyond the spread", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := CompareRetrieval(tc.a, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			ev := c.Evidence[0]
			if c.Questions != 20 || len(c.Evidence) != 2 || len(c.Answer) != 2 || ev.K != 5 || ev.Questions != 20 {
				t.Fatalf("comparison %+v", c)
			}
			if ev.beyond() != tc.want || !near(ev.Change, tc.change) || ev.Low > ev.Change || ev.Change > ev.High {
				t.Errorf("evidence R@5: %+v (%s), want %s with change %v inside its interval", ev, ev.beyond(), tc.want, tc.change)
			}
			// Answer R@5 hits nowhere in either report.
			if a := c.Answer[0]; a.A != 0 || a.B != 0 || a.beyond() != "the same" {
				t.Errorf("answer R@5 %+v", a)
			}
			var md strings.Builder
			c.Markdown(&md)
			if !strings.Contains(md.String(), "| evidence R@10 | 20 |") {
				t.Errorf("markdown:\n%s", md.String())
			}
		})
	}
}

func TestCompareRetrievalRejects(t *testing.T) {
	base := questions(make([]bool, 5))
	otherKs := questions(make([]bool, 5))
	otherKs.Ks = []int{5, 20}
	renamed := questions(make([]bool, 5))
	renamed.PerQuestion[2].ID = "other"
	fewer := questions(make([]bool, 4))
	noEvidence := questions(make([]bool, 5))
	noEvidence.PerQuestion[0].Evidence = false
	for name, b := range map[string]*RetrievalReport{
		"other ks": otherKs, "another question": renamed, "a question less": fewer,
		"evidence in one graph only": noEvidence, "no per-question results": {Ks: []int{5, 10}},
	} {
		if _, err := CompareRetrieval(base, b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestCompare(t *testing.T) {
	gold := report(same(10, 2, 2, 1))
	rt := questions(make([]bool, 5))
	c, err := Compare("old.json", &Report{Gold: gold, Retrieval: rt}, &Report{Gold: gold, Retrieval: rt})
	if err != nil || c.Gold == nil || c.Retrieval == nil {
		t.Fatalf("both: %+v, %v", c, err)
	}
	if c, err := Compare("old.json", &Report{Gold: gold}, &Report{Gold: gold, Retrieval: rt}); err != nil || c.Gold == nil || c.Retrieval != nil {
		t.Errorf("gold only in the earlier report: %+v, %v", c, err)
	}
	if _, err := Compare("old.json", &Report{Gold: gold}, &Report{Retrieval: rt}); err == nil {
		t.Error("nothing in common: no error")
	}
}
