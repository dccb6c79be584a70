package evaluation

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// RecallChange is the paired change of one recall@k from graph A to graph B: both sides'
// questions drawn with the same Resamples draws, the 95% interval (2.5th and 97.5th
// percentiles) of the change over the draws, and the shares of draws in which B is higher and
// lower.
type RecallChange struct {
	K         int     `json:"k"`
	Questions int     `json:"questions"` // the questions it counts: with evidence, or with an answer
	A         float64 `json:"a"`
	B         float64 `json:"b"`
	Change    float64 `json:"change"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	BHigher   float64 `json:"b_higher"`
	BLower    float64 `json:"b_lower"`
}

// RetrievalChange compares the retrieval of two graphs of the same input against the same
// questions, question by question, over the scored questions (not those reported apart).
type RetrievalChange struct {
	Questions int            `json:"questions"`
	Resamples int            `json:"resamples"`
	Evidence  []RecallChange `json:"evidence_recall"`
	// Session is empty when a report predates session hits.
	Session []RecallChange `json:"session_recall,omitempty"`
	Answer  []RecallChange `json:"answer_recall"`
}

// CompareRetrieval pairs the scored questions of two retrieval reports by group and id and
// bootstraps the change of every evidence and answer recall@k from a to b. Reports of other
// ks, other questions (other ids, or the same id with another digest), or graphs holding other
// evidence episodes are an error. Reports written before digests existed pair by id alone.
func CompareRetrieval(a, b *RetrievalReport) (*RetrievalChange, error) {
	if !slices.Equal(a.Ks, b.Ks) {
		return nil, fmt.Errorf("comparing retrieval: k %v in A, %v in B", a.Ks, b.Ks)
	}
	if len(a.PerQuestion) == 0 || len(b.PerQuestion) == 0 {
		return nil, errors.New("comparing retrieval: no per-question results (a report of an older build, or no question asked)")
	}
	type key struct{ group, id string }
	inB := map[key]QuestionScore{}
	scoredB := 0
	for _, q := range b.PerQuestion {
		if !q.Apart {
			inB[key{q.Group, q.ID}] = q
			scoredB++
		}
	}
	var qa, qb []QuestionScore
	for _, q := range a.PerQuestion {
		if q.Apart {
			continue
		}
		p, ok := inB[key{q.Group, q.ID}]
		switch {
		case !ok:
			return nil, fmt.Errorf("comparing retrieval: question %s of group %s is scored in A only: not the same questions", q.ID, q.Group)
		case p.Digest != "" && q.Digest != "" && p.Digest != q.Digest:
			return nil, fmt.Errorf("comparing retrieval: question %s of group %s differs between the reports (text, answer or evidence): not the same questions", q.ID, q.Group)
		case p.Evidence != q.Evidence:
			return nil, fmt.Errorf("comparing retrieval: question %s of group %s has its evidence in one graph only: not the same input", q.ID, q.Group)
		}
		qa, qb = append(qa, q), append(qb, p)
	}
	if len(qa) != scoredB {
		return nil, fmt.Errorf("comparing retrieval: %d scored questions in A, %d in B: not the same questions", len(qa), scoredB)
	}
	c := &RetrievalChange{Questions: len(qa), Resamples: Resamples}
	ds := draws(len(qa))
	sessions := !slices.ContainsFunc(append(slices.Clone(qa), qb...), func(q QuestionScore) bool { return len(q.SessionHits) != len(a.Ks) })
	for i, k := range a.Ks {
		c.Evidence = append(c.Evidence, recallChange(k, qa, qb, ds,
			func(q QuestionScore) bool { return q.Evidence }, func(q QuestionScore) bool { return q.EvidenceHits[i] }))
		if sessions {
			c.Session = append(c.Session, recallChange(k, qa, qb, ds,
				func(q QuestionScore) bool { return q.Evidence }, func(q QuestionScore) bool { return q.SessionHits[i] }))
		}
		c.Answer = append(c.Answer, recallChange(k, qa, qb, ds,
			func(q QuestionScore) bool { return q.Answer }, func(q QuestionScore) bool { return q.AnswerHits[i] }))
	}
	return c, nil
}

// recallChange bootstraps the change of the share of counted questions (counts) that hit.
func recallChange(k int, qa, qb []QuestionScore, ds [][]int, counts, hit func(QuestionScore) bool) RecallChange {
	share := func(qs []QuestionScore, draw []int) float64 {
		n, h := 0, 0
		for _, i := range draw {
			if counts(qs[i]) {
				n++
				if hit(qs[i]) {
					h++
				}
			}
		}
		return ratio(h, n)
	}
	all := make([]int, len(qa))
	for i := range all {
		all[i] = i
	}
	r := RecallChange{K: k, A: share(qa, all), B: share(qb, all)}
	for _, q := range qa {
		if counts(q) {
			r.Questions++
		}
	}
	r.Change = r.B - r.A
	deltas := make([]float64, 0, len(ds))
	for _, d := range ds {
		deltas = append(deltas, share(qb, d)-share(qa, d))
	}
	var iv [2]float64
	iv, r.BHigher, r.BLower = pairedSpread(deltas)
	r.Low, r.High = iv[0], iv[1]
	return r
}

// changeRows writes the table rows of evidence, session and answer recall changes.
func changeRows(w io.Writer, ev, sess, ans []RecallChange) {
	for _, rows := range []struct {
		name string
		rs   []RecallChange
	}{{"evidence", ev}, {"session", sess}, {"answer", ans}} {
		for _, r := range rows.rs {
			fmt.Fprintf(w, "| %s R@%d | %d | %.3f | %.3f | %+.3f | %+.3f … %+.3f | %.1f%% / %.1f%% | %s |\n", rows.name, r.K, r.Questions,
				r.A, r.B, r.Change, r.Low, r.High, 100*r.BHigher, 100*r.BLower, r.beyond())
		}
	}
}

// beyond says whether the change's interval leaves out 0 (direction).
func (r RecallChange) beyond() string { return direction(r.Low, r.High, r.BHigher, r.BLower) }

// Markdown writes the comparison as a table.
func (c *RetrievalChange) Markdown(w io.Writer) {
	fmt.Fprintf(w, "## Retrieval, paired over %d questions\n\n| recall | questions | A | B | change | 95%% interval of the change | B higher / lower in | |\n|---|---:|---:|---:|---:|---|---|---|\n", c.Questions)
	changeRows(w, c.Evidence, c.Session, c.Answer)
	fmt.Fprintf(w, "\n%d paired resamples of the questions; a change whose interval holds 0 is within what the choice of questions moves.\n\n", c.Resamples)
}

// ModeChange is the paired change of the recalls from mode A to mode B of one report: the same
// questions (those scored, not apart) in both modes, bootstrapped as CompareRetrieval does.
type ModeChange struct {
	A        string         `json:"a"`
	B        string         `json:"b"`
	Evidence []RecallChange `json:"evidence_recall"`
	Session  []RecallChange `json:"session_recall"`
	Answer   []RecallChange `json:"answer_recall"`
}

// asMode is a question's score with the hits of mode in place of the facts' (ok false when the
// score has no such mode).
func asMode(q QuestionScore, mode string) (QuestionScore, bool) {
	if mode == ModeFacts {
		return q, true
	}
	for _, b := range q.Baselines {
		if b.Mode == mode {
			q.EvidenceHits, q.SessionHits, q.AnswerHits = b.EvidenceHits, b.SessionHits, b.AnswerHits
			return q, true
		}
	}
	return q, false
}

// compareModes pairs the scored questions of a report in modes a and b.
func compareModes(scores []QuestionScore, ks []int, a, b string) *ModeChange {
	var qa, qb []QuestionScore
	for _, q := range scores {
		if q.Apart {
			continue
		}
		x, okA := asMode(q, a)
		y, okB := asMode(q, b)
		if !okA || !okB {
			return nil
		}
		qa, qb = append(qa, x), append(qb, y)
	}
	if len(qa) == 0 {
		return nil
	}
	c := &ModeChange{A: a, B: b}
	ds := draws(len(qa))
	withEvidence := func(q QuestionScore) bool { return q.Evidence }
	for i, k := range ks {
		c.Evidence = append(c.Evidence, recallChange(k, qa, qb, ds, withEvidence, func(q QuestionScore) bool { return q.EvidenceHits[i] }))
		c.Session = append(c.Session, recallChange(k, qa, qb, ds, withEvidence, func(q QuestionScore) bool { return q.SessionHits[i] }))
		c.Answer = append(c.Answer, recallChange(k, qa, qb, ds,
			func(q QuestionScore) bool { return q.Answer }, func(q QuestionScore) bool { return q.AnswerHits[i] }))
	}
	return c
}

// Markdown writes the paired changes of one mode against another.
func (c *ModeChange) Markdown(w io.Writer) {
	fmt.Fprintf(w, "| %s against %s | questions | %s | %s | change | 95%% interval of the change | %s higher / lower in | |\n|---|---:|---:|---:|---:|---|---|---|\n",
		c.B, c.A, c.A, c.B, c.B)
	changeRows(w, c.Evidence, c.Session, c.Answer)
	fmt.Fprintln(w)
}
