package evaluation

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
)

// RetrievalReport is retrieval against a benchmark's ground truth.
type RetrievalReport struct {
	Dataset   string  `json:"dataset"`
	Ks        []int   `json:"k"`
	MinCosine float64 `json:"min_cosine"`
	// Categories are the scored rows in the dataset's category order, then "all"; Apart holds
	// the questions reported apart (adversarial, abstention, without evidence), by category.
	Categories []Recall `json:"categories"`
	Apart      []Recall `json:"apart"`
	// GroupMissing counts questions whose group is not in the graph (not scored).
	GroupMissing int `json:"questions_group_missing"`
	// EvidenceMissing counts evidence record keys that name no episode of the graph;
	// Unreadable lists evidence ids that could not be read at all.
	EvidenceMissing int      `json:"evidence_keys_missing"`
	Unreadable      []string `json:"evidence_unreadable,omitempty"`
	// CosineEmpty counts questions for which the similarity search found no fact above
	// MinCosine (their ranking is BM25's alone).
	CosineEmpty int `json:"questions_cosine_empty"`
	// PerQuestion are the hits of every question asked, in group and dataset order: what
	// CompareRetrieval pairs.
	PerQuestion []QuestionScore `json:"per_question"`
}

// QuestionScore is one question's hits at each k.
type QuestionScore struct {
	Group    string `json:"group"`
	ID       string `json:"id"`
	Category string `json:"category"`
	Apart    bool   `json:"apart,omitempty"`
	// Digest identifies the question's text, answer and evidence (digest): reports of two
	// datasets that share an id pair only when it is the same question.
	Digest string `json:"digest,omitempty"`
	// Evidence: some evidence episode is in the graph; Answer: the dataset gives an answer.
	Evidence     bool   `json:"evidence"`
	Answer       bool   `json:"answer"`
	EvidenceHits []bool `json:"evidence_hits"`
	AnswerHits   []bool `json:"answer_hits"`
}

// Recall is one row of the retrieval table. Evidence recall@k is EvidenceHits[i]/WithEvidence
// for k = Ks[i]: the share of questions with evidence in the graph for which a retrieved fact
// was derived from an evidence episode. Answer recall@k is AnswerHits[i]/WithAnswer: the share
// of questions with a gold answer whose normalised answer appears in the retrieved facts.
type Recall struct {
	Category       string    `json:"category"`
	Questions      int       `json:"questions"`
	WithEvidence   int       `json:"with_evidence"`
	WithAnswer     int       `json:"with_answer"`
	EvidenceHits   []int     `json:"evidence_hits"`
	AnswerHits     []int     `json:"answer_hits"`
	EvidenceRecall []float64 `json:"evidence_recall"`
	AnswerRecall   []float64 `json:"answer_recall"`
	// EvidenceRecall95 and AnswerRecall95 are the 95% Wilson score intervals of the recalls:
	// how far a recall of this many questions moves with the choice of questions.
	EvidenceRecall95 [][2]float64 `json:"evidence_recall_95"`
	AnswerRecall95   [][2]float64 `json:"answer_recall_95"`
}

func newRecall(category string, nk int) *Recall {
	return &Recall{Category: category, EvidenceHits: make([]int, nk), AnswerHits: make([]int, nk)}
}

func (r *Recall) add(x questionResult) {
	r.Questions++
	if x.evidence {
		r.WithEvidence++
	}
	if x.q.Answer != "" {
		r.WithAnswer++
	}
	for i := range r.EvidenceHits {
		if x.evidence && x.evHits[i] {
			r.EvidenceHits[i]++
		}
		if x.q.Answer != "" && x.ansHits[i] {
			r.AnswerHits[i]++
		}
	}
}

func (r *Recall) finish() {
	r.EvidenceRecall, r.AnswerRecall = make([]float64, len(r.EvidenceHits)), make([]float64, len(r.AnswerHits))
	r.EvidenceRecall95, r.AnswerRecall95 = make([][2]float64, len(r.EvidenceHits)), make([][2]float64, len(r.AnswerHits))
	for i := range r.EvidenceHits {
		r.EvidenceRecall[i] = ratio(r.EvidenceHits[i], r.WithEvidence)
		r.AnswerRecall[i] = ratio(r.AnswerHits[i], r.WithAnswer)
		r.EvidenceRecall95[i] = wilson(r.EvidenceHits[i], r.WithEvidence)
		r.AnswerRecall95[i] = wilson(r.AnswerHits[i], r.WithAnswer)
	}
}

// wilson is the 95% Wilson score interval of the share hits/n; [0, 0] when n is 0.
func wilson(hits, n int) [2]float64 {
	if n == 0 {
		return [2]float64{}
	}
	const z = 1.959963984540054
	p, nn := float64(hits)/float64(n), float64(n)
	d := 1 + z*z/nn
	mid, half := (p+z*z/(2*nn))/d, z/d*math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn))
	return [2]float64{max(mid-half, 0), min(mid+half, 1)}
}

// digest is the first 12 bytes, in hex, of the SHA-256 of q's text, answer and evidence keys
// (as a JSON array, so no two lists share one).
func digest(q *Question) string {
	b, _ := json.Marshal(append([]string{q.Text, q.Answer}, q.Evidence...)) // strings always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// recallTable accumulates question results into rows.
type recallTable struct {
	order     []string
	rows      map[string]*Recall
	apart     map[string]*Recall
	all       *Recall
	nk        int
	cosine0   int
	evMissing int
	scores    []QuestionScore
}

func newRecallTable(categories []string, nk int) *recallTable {
	return &recallTable{order: slices.Clone(categories), rows: map[string]*Recall{}, apart: map[string]*Recall{},
		all: newRecall("all", nk), nk: nk}
}

func (t *recallTable) add(x questionResult) {
	if x.cosineEmpty {
		t.cosine0++
	}
	t.scores = append(t.scores, QuestionScore{Group: x.q.Group, ID: x.q.ID, Category: x.q.Category, Apart: x.q.Apart,
		Digest: digest(x.q), Evidence: x.evidence, Answer: x.q.Answer != "", EvidenceHits: slices.Clone(x.evHits), AnswerHits: slices.Clone(x.ansHits)})
	rows := t.rows
	if x.q.Apart {
		rows = t.apart
	} else {
		t.all.add(x)
	}
	r, ok := rows[x.q.Category]
	if !ok {
		r = newRecall(x.q.Category, t.nk)
		rows[x.q.Category] = r
		if !slices.Contains(t.order, x.q.Category) {
			t.order = append(t.order, x.q.Category)
		}
	}
	r.add(x)
}

// report fills the rows of rep in category order.
func (t *recallTable) report(rep *RetrievalReport) {
	for _, c := range t.order {
		if r, ok := t.rows[c]; ok {
			r.finish()
			rep.Categories = append(rep.Categories, *r)
		}
		if r, ok := t.apart[c]; ok {
			r.finish()
			rep.Apart = append(rep.Apart, *r)
		}
	}
	t.all.finish()
	rep.Categories = append(rep.Categories, *t.all)
	rep.CosineEmpty, rep.EvidenceMissing, rep.PerQuestion = t.cosine0, t.evMissing, t.scores
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
