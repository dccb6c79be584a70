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
			Evidence: true, Answer: true, EvidenceHits: []bool{h, h}, SessionHits: []bool{h, true}, AnswerHits: []bool{false, h}})
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
			// Session R@10 hits everywhere in both reports.
			if len(c.Session) != 2 || c.Session[1].A != 1 || c.Session[1].B != 1 || c.Session[0].Change != ev.Change {
				t.Errorf("session recall %+v", c.Session)
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

func TestCompareRetrievalWithoutSessionHits(t *testing.T) {
	old := questions([]bool{true, false})
	for i := range old.PerQuestion {
		old.PerQuestion[i].SessionHits = nil // a report of a build before session recall
	}
	c, err := CompareRetrieval(old, questions([]bool{true, true}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Session) != 0 || len(c.Evidence) != 2 {
		t.Errorf("comparison %+v: want evidence changes and no session changes", c)
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
	for i := range base.PerQuestion {
		base.PerQuestion[i].Digest = digest(&Question{Text: fmt.Sprint("question ", i), Answer: "yes", Evidence: []string{"D1:1"}})
	}
	otherText := questions(make([]bool, 5))
	otherText.PerQuestion = slices.Clone(base.PerQuestion)
	otherText.PerQuestion[3].Digest = digest(&Question{Text: "question 3", Answer: "no", Evidence: []string{"D1:1"}})
	for name, b := range map[string]*RetrievalReport{
		"other ks": otherKs, "another question": renamed, "a question less": fewer, "the same id, another answer": otherText,
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

// TestQuestionDigest: the digest changes with the text, the answer and the evidence (their
// order, and where one string ends and the next begins, included), not with the id, category or
// apart flag; a report without digests (an older build) pairs with one that has them.
func TestQuestionDigest(t *testing.T) {
	q := Question{ID: "q1", Group: "g", Text: "Where does Emma live?", Answer: "Bristol", Evidence: []string{"D1:3", "D2:1"}}
	same := q
	same.ID, same.Category, same.Apart = "q9", "4", true // not part of the digest
	if digest(&q) != digest(&same) {
		t.Error("the digest depends on more than text, answer and evidence")
	}
	for name, change := range map[string]func(*Question){
		"text":           func(x *Question) { x.Text = "Where did Emma live?" },
		"answer":         func(x *Question) { x.Answer = "Manchester" },
		"evidence":       func(x *Question) { x.Evidence = []string{"D1:3"} },
		"evidence order": func(x *Question) { x.Evidence = []string{"D2:1", "D1:3"} },
		"split":          func(x *Question) { x.Text, x.Answer = "Where does Emma live?Bristol", "" },
	} {
		x := q
		change(&x)
		if digest(&x) == digest(&q) {
			t.Errorf("%s: same digest", name)
		}
	}
	old, now := questions(make([]bool, 4)), questions(make([]bool, 4))
	for i := range now.PerQuestion {
		now.PerQuestion[i].Digest = digest(&Question{Text: fmt.Sprint(i)})
	}
	if _, err := CompareRetrieval(old, now); err != nil {
		t.Errorf("a report without digests: %v", err)
	}
}
