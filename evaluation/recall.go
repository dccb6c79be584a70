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
	// Categories are the scored rows of ModeFacts in the dataset's category order, then "all";
	// Apart holds the questions reported apart (adversarial, abstention, without evidence), by
	// category.
	Categories []Recall `json:"categories"`
	Apart      []Recall `json:"apart"`
	// Baselines are the same questions in the other modes (ModeFactsEpisodes, the raw episode
	// modes, ModeCombined), computed by the same code: what the graph's facts are read against.
	Baselines []ModeRecall `json:"baselines,omitempty"`
	// Paired compares ModeFactsEpisodes with each raw episode mode (ModeEpisodesBM25,
	// ModeEpisodesDense, ModeEpisodesHybrid) question by question: the change of each recall
	// with its 95% paired-bootstrap interval (A the raw mode, B the graph's k items).
	Paired []ModeChange `json:"paired,omitempty"`
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
	SessionHits  []bool `json:"session_hits,omitempty"`
	AnswerHits   []bool `json:"answer_hits"`
	// Baselines are the question's hits in the other modes, in the order of
	// RetrievalReport.Baselines.
	Baselines []ModeHits `json:"baselines,omitempty"`
}

// ModeHits are one question's hits at each k in one mode.
type ModeHits struct {
	Mode         string `json:"mode"`
	EvidenceHits []bool `json:"evidence_hits"`
	SessionHits  []bool `json:"session_hits"`
	AnswerHits   []bool `json:"answer_hits"`
}

// ModeRecall is the retrieval table of one mode.
type ModeRecall struct {
	Mode       string   `json:"mode"`
	Categories []Recall `json:"categories"`
	Apart      []Recall `json:"apart"`
}

// Recall is one row of a retrieval table. Evidence recall@k is EvidenceHits[i]/WithEvidence
// for k = Ks[i]: the share of questions with evidence in the graph for which an evidence turn
// was retrieved (a retrieved fact was derived from it, or it is a retrieved episode). Session
// recall@k is SessionHits[i]/WithEvidence: the same with any turn of an evidence session
// (Dataset.SessionOf), what published results that count sessions measure. Answer recall@k is
// AnswerHits[i]/WithAnswer: the share of questions with a gold answer whose normalised answer
// appears in a retrieved text.
type Recall struct {
	Category       string    `json:"category"`
	Questions      int       `json:"questions"`
	WithEvidence   int       `json:"with_evidence"`
	WithAnswer     int       `json:"with_answer"`
	EvidenceHits   []int     `json:"evidence_hits"`
	SessionHits    []int     `json:"session_hits"`
	AnswerHits     []int     `json:"answer_hits"`
	EvidenceRecall []float64 `json:"evidence_recall"`
	SessionRecall  []float64 `json:"session_recall"`
	AnswerRecall   []float64 `json:"answer_recall"`
	// EvidenceRecall95, SessionRecall95 and AnswerRecall95 are the 95% Wilson score intervals
	// of the recalls: how far a recall of this many questions moves with the choice of
	// questions.
	EvidenceRecall95 [][2]float64 `json:"evidence_recall_95"`
	SessionRecall95  [][2]float64 `json:"session_recall_95"`
	AnswerRecall95   [][2]float64 `json:"answer_recall_95"`
}

func newRecall(category string, nk int) *Recall {
	return &Recall{Category: category, EvidenceHits: make([]int, nk), SessionHits: make([]int, nk), AnswerHits: make([]int, nk)}
}

// add counts question x's hits in mode m.
func (r *Recall) add(x questionResult, m int) {
	r.Questions++
	if x.evidence {
		r.WithEvidence++
	}
	if x.q.Answer != "" {
		r.WithAnswer++
	}
	h := x.modes[m]
	for i := range r.EvidenceHits {
		if x.evidence && h.ev[i] {
			r.EvidenceHits[i]++
		}
		if x.evidence && h.sess[i] {
			r.SessionHits[i]++
		}
		if x.q.Answer != "" && h.ans[i] {
			r.AnswerHits[i]++
		}
	}
}

func (r *Recall) finish() {
	nk := len(r.EvidenceHits)
	r.EvidenceRecall, r.SessionRecall, r.AnswerRecall = make([]float64, nk), make([]float64, nk), make([]float64, nk)
	r.EvidenceRecall95, r.SessionRecall95, r.AnswerRecall95 = make([][2]float64, nk), make([][2]float64, nk), make([][2]float64, nk)
	for i := range nk {
		r.EvidenceRecall[i] = ratio(r.EvidenceHits[i], r.WithEvidence)
		r.SessionRecall[i] = ratio(r.SessionHits[i], r.WithEvidence)
		r.AnswerRecall[i] = ratio(r.AnswerHits[i], r.WithAnswer)
		r.EvidenceRecall95[i] = wilson(r.EvidenceHits[i], r.WithEvidence)
		r.SessionRecall95[i] = wilson(r.SessionHits[i], r.WithEvidence)
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

// recallTable accumulates question results into the rows of every mode.
type recallTable struct {
	order     []string
	modes     [len(modes)]recallRows
	nk        int
	cosine0   int
	evMissing int
	scores    []QuestionScore
}

// recallRows are one mode's rows: by category, apart by category, and "all".
type recallRows struct {
	rows, apart map[string]*Recall
	all         *Recall
}

func newRecallTable(categories []string, nk int) *recallTable {
	t := &recallTable{order: slices.Clone(categories), nk: nk}
	for m := range t.modes {
		t.modes[m] = recallRows{rows: map[string]*Recall{}, apart: map[string]*Recall{}, all: newRecall("all", nk)}
	}
	return t
}

func (t *recallTable) add(x questionResult) {
	if x.cosineEmpty {
		t.cosine0++
	}
	s := QuestionScore{Group: x.q.Group, ID: x.q.ID, Category: x.q.Category, Apart: x.q.Apart,
		Digest: digest(x.q), Evidence: x.evidence, Answer: x.q.Answer != "", EvidenceHits: slices.Clone(x.modes[0].ev),
		SessionHits: slices.Clone(x.modes[0].sess), AnswerHits: slices.Clone(x.modes[0].ans)}
	for m := 1; m < len(modes); m++ {
		h := x.modes[m]
		s.Baselines = append(s.Baselines, ModeHits{Mode: modes[m], EvidenceHits: slices.Clone(h.ev),
			SessionHits: slices.Clone(h.sess), AnswerHits: slices.Clone(h.ans)})
	}
	t.scores = append(t.scores, s)
	if !slices.Contains(t.order, x.q.Category) {
		t.order = append(t.order, x.q.Category)
	}
	for m := range t.modes {
		mr := &t.modes[m]
		rows := mr.rows
		if x.q.Apart {
			rows = mr.apart
		} else {
			mr.all.add(x, m)
		}
		r, ok := rows[x.q.Category]
		if !ok {
			r = newRecall(x.q.Category, t.nk)
			rows[x.q.Category] = r
		}
		r.add(x, m)
	}
}

// tables are one mode's rows in category order, then "all", and the rows apart.
func (t *recallTable) tables(m int) (categories, apart []Recall) {
	mr := t.modes[m]
	for _, c := range t.order {
		if r, ok := mr.rows[c]; ok {
			r.finish()
			categories = append(categories, *r)
		}
		if r, ok := mr.apart[c]; ok {
			r.finish()
			apart = append(apart, *r)
		}
	}
	mr.all.finish()
	return append(categories, *mr.all), apart
}

// report fills the rows of rep: ModeFacts at the top, the other modes as baselines.
func (t *recallTable) report(rep *RetrievalReport) {
	rep.Categories, rep.Apart = t.tables(0)
	for m := 1; m < len(modes); m++ {
		c, a := t.tables(m)
		rep.Baselines = append(rep.Baselines, ModeRecall{Mode: modes[m], Categories: c, Apart: a})
	}
	rep.CosineEmpty, rep.EvidenceMissing, rep.PerQuestion = t.cosine0, t.evMissing, t.scores
	for _, raw := range rawModes {
		if c := compareModes(t.scores, rep.Ks, raw, ModeFactsEpisodes); c != nil {
			rep.Paired = append(rep.Paired, *c)
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
