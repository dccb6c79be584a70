package evaluation

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/loaders"
)

// Question is one benchmark question with its ground truth.
type Question struct {
	ID       string
	Group    string // the graph group it is asked in
	Text     string
	Answer   string // "" when the dataset gives none
	Category string
	Evidence []string   // record keys of the evidence episodes
	At       *time.Time // when it is asked; nil: at the group's last episode
	// Apart questions (adversarial, abstention, or without evidence) are scored but reported
	// apart from the totals.
	Apart bool
}

// Dataset is the questions of a benchmark file, by group.
type Dataset struct {
	Name       string
	Categories []string // report order
	Questions  map[string][]Question
	// Unreadable lists evidence ids that name no turn ("D" alone, say); their questions keep
	// the ids that could be read.
	Unreadable []string
	// sessionEnd ends the session part of a record key (see SessionOf).
	sessionEnd string
}

func newDataset(name string, categories []string, sessionEnd string) *Dataset {
	return &Dataset{Name: name, Categories: categories, Questions: map[string][]Question{}, sessionEnd: sessionEnd}
}

// SessionOf is the session of a turn's record key, what session-level evidence recall counts:
// LoCoMo's sample_id/D<session> of sample_id/D<session>:<turn> (the dia_id's prefix),
// LongMemEval's question_id/session_id of question_id/session_id/<turn>; "" for a key of another
// form.
func (d *Dataset) SessionOf(key string) string {
	i := strings.LastIndex(key, d.sessionEnd)
	if d.sessionEnd == "" || i <= 0 {
		return ""
	}
	return key[:i]
}

func (d *Dataset) add(q Question) {
	if len(q.Evidence) == 0 {
		q.Apart = true
	}
	d.Questions[q.Group] = append(d.Questions[q.Group], q)
}

// Count is the number of questions.
func (d *Dataset) Count() int {
	n := 0
	for _, qs := range d.Questions {
		n += len(qs)
	}
	return n
}

// ReadDataset reads the questions of a LoCoMo or LongMemEval file. Groups are the importer's:
// the sample or question id, mapped to [A-Za-z0-9_-] the way loaders.MapGroupID does; evidence
// record keys are the importer's record keys. loc is the zone of LongMemEval's naive
// question_date (the job's timezone).
// A file without any question is an error.
func ReadDataset(ctx context.Context, kind string, r io.Reader, loc *time.Location) (*Dataset, error) {
	var d *Dataset
	var err error
	switch kind {
	case "locomo":
		d, err = readLoCoMo(ctx, r)
	case "longmemeval":
		d, err = readLongMemEval(ctx, r, loc)
	default:
		return nil, fmt.Errorf("reading dataset: unknown kind %q (want locomo or longmemeval)", kind)
	}
	if err == nil && d.Count() == 0 {
		err = fmt.Errorf("no questions: not a %s file, or one without its questions", kind)
	}
	return d, err
}

// LoCoMo's category numbers, as its evaluation code names them (task_eval/evaluation.py).
var locomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

type locomoQA struct {
	Question string          `json:"question"`
	Answer   json.RawMessage `json:"answer"`
	Evidence []string        `json:"evidence"`
	Category int             `json:"category"`
}

type locomoSample struct {
	SampleID json.RawMessage `json:"sample_id"`
	QA       []locomoQA      `json:"qa"`
}

// reDiaID reads one dialogue id of a LoCoMo evidence string, tolerating the variants of
// locomo10.json ("D8:6; D9:17", "D:11:26", "D30:05").
var reDiaID = regexp.MustCompile(`D\s*:?\s*(\d+)\s*:\s*(\d+)`)

func readLoCoMo(ctx context.Context, r io.Reader) (*Dataset, error) {
	d := newDataset("locomo", []string{"single-hop", "multi-hop", "temporal", "open-domain", "adversarial"}, ":")
	err := loaders.EachElement(ctx, r, func(idx int64, raw json.RawMessage) error {
		var s locomoSample
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("reading LoCoMo sample %d: %w", idx, err)
		}
		sid := scalar(s.SampleID)
		if sid == "" {
			return fmt.Errorf("reading LoCoMo sample %d: no sample_id", idx)
		}
		group := loaders.MapGroupID(sid)
		for i, qa := range s.QA {
			cat, ok := locomoCategories[qa.Category]
			if !ok {
				cat = "category " + strconv.Itoa(qa.Category)
			}
			q := Question{ID: fmt.Sprintf("%s#%d", sid, i+1), Group: group, Text: qa.Question, Answer: scalar(qa.Answer),
				Category: cat, Apart: qa.Category == 5}
			for _, ev := range qa.Evidence {
				ids := reDiaID.FindAllStringSubmatch(ev, -1)
				if len(ids) == 0 {
					d.Unreadable = append(d.Unreadable, fmt.Sprintf("%s: %q", q.ID, ev))
				}
				for _, m := range ids {
					a, _ := strconv.Atoi(m[1])
					b, _ := strconv.Atoi(m[2])
					q.Evidence = append(q.Evidence, fmt.Sprintf("%s/D%d:%d", sid, a, b))
				}
			}
			d.add(q)
		}
		return nil
	})
	return d, err
}

type lmeQuestion struct {
	QuestionID   json.RawMessage `json:"question_id"`
	QuestionType string          `json:"question_type"`
	Question     string          `json:"question"`
	Answer       json.RawMessage `json:"answer"`
	QuestionDate string          `json:"question_date"`
	SessionIDs   []string        `json:"haystack_session_ids"`
	Sessions     [][]struct {
		HasAnswer bool `json:"has_answer"`
	} `json:"haystack_sessions"`
	AnswerSessionIDs []string `json:"answer_session_ids"`
}

func readLongMemEval(ctx context.Context, r io.Reader, loc *time.Location) (*Dataset, error) {
	d := newDataset("longmemeval", []string{"single-session-user", "single-session-assistant", "single-session-preference",
		"multi-session", "knowledge-update", "temporal-reasoning"}, "/")
	err := loaders.EachElement(ctx, r, func(idx int64, raw json.RawMessage) error {
		var lq lmeQuestion
		if err := json.Unmarshal(raw, &lq); err != nil {
			return fmt.Errorf("reading LongMemEval question %d: %w", idx, err)
		}
		qid := scalar(lq.QuestionID)
		if qid == "" {
			return fmt.Errorf("reading LongMemEval question %d: no question_id", idx)
		}
		q := Question{ID: qid, Group: loaders.MapGroupID(qid), Text: lq.Question, Answer: scalar(lq.Answer),
			Category: lq.QuestionType, Apart: strings.HasSuffix(qid, "_abs")}
		if lq.QuestionDate != "" {
			at, err := loaders.ParseTime(lq.QuestionDate, loaders.LongMemEvalLayout, loc)
			if err != nil {
				return fmt.Errorf("reading LongMemEval question %s: question_date: %w", qid, err)
			}
			q.At = &at
		}
		answers := map[string]bool{}
		for _, s := range lq.AnswerSessionIDs {
			answers[s] = true
		}
		for i, turns := range lq.Sessions {
			if i >= len(lq.SessionIDs) || !answers[lq.SessionIDs[i]] {
				continue
			}
			for j, t := range turns {
				if t.HasAnswer {
					q.Evidence = append(q.Evidence, qid+"/"+lq.SessionIDs[i]+"/"+strconv.Itoa(j+1))
				}
			}
		}
		d.add(q)
		return nil
	})
	return d, err
}

// scalar is a JSON string or number as text; "" for anything else.
func scalar(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}
