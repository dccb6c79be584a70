package evaluation

import (
	"context"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/internal/workpool"
	"github.com/tkgraph/backfill/llm/wire"
)

// Asker is the chat client `--qa` asks (an *llm.Client: cached, paced, budgeted and costed).
type Asker interface {
	Call(ctx context.Context, stage, task string, input, out any) error
}

// QAStage names the usage counters and the cache namespace of the QA calls.
const QAStage = "eval"

// QAReport is question answering from the retrieved facts, graded by an LLM judge. Questions
// reported apart and questions without a gold answer are not asked.
type QAReport struct {
	K          int     `json:"k"` // facts in each question's context
	Questions  int     `json:"questions"`
	Correct    int     `json:"correct"`
	Accuracy   float64 `json:"accuracy"`
	ByCategory []QARow `json:"by_category"`
}

// QARow is one category's QA accuracy.
type QARow struct {
	Category  string  `json:"category"`
	Questions int     `json:"questions"`
	Correct   int     `json:"correct"`
	Accuracy  float64 `json:"accuracy"`
}

// answerGroup asks and grades every answerable question of one group, at most concurrency at a
// time; the first error (a budget stop included) cancels the rest.
func answerGroup(ctx context.Context, ask Asker, rs []questionResult, concurrency int) ([]bool, []bool, error) {
	asked, correct := make([]bool, len(rs)), make([]bool, len(rs))
	p := workpool.New(ctx, concurrency)
	for i := range rs {
		r := &rs[i]
		if r.q.Apart || r.q.Answer == "" {
			continue
		}
		asked[i] = true
		p.Go(func(ctx context.Context) error {
			var ans wire.AnswerOutput
			in := wire.AnswerInput{QuestionTime: r.at.UTC().Format(time.RFC3339), Question: r.q.Text, Context: contextText(r.top)}
			if err := ask.Call(ctx, QAStage, wire.TaskAnswerQuestion, in, &ans); err != nil {
				return fmt.Errorf("answering question %s: %w", r.q.ID, err)
			}
			var grade wire.GradeOutput
			gin := wire.GradeInput{Question: r.q.Text, GoldAnswer: r.q.Answer, Answer: ans.Answer}
			if err := ask.Call(ctx, QAStage, wire.TaskGradeAnswer, gin, &grade); err != nil {
				return fmt.Errorf("grading question %s: %w", r.q.ID, err)
			}
			correct[i] = grade.Correct
			return nil
		})
	}
	return asked, correct, p.Wait()
}

// qaTable accumulates QA verdicts by category.
type qaTable struct {
	order []string
	rows  map[string]*QARow
	all   QARow
}

func (t *qaTable) add(category string, correct bool) {
	if t.rows == nil {
		t.rows = map[string]*QARow{}
	}
	r, ok := t.rows[category]
	if !ok {
		r = &QARow{Category: category}
		t.rows[category] = r
		t.order = append(t.order, category)
	}
	for _, x := range []*QARow{r, &t.all} {
		x.Questions++
		if correct {
			x.Correct++
		}
	}
}

func (t *qaTable) report(k int, categories []string) *QAReport {
	rep := &QAReport{K: k, Questions: t.all.Questions, Correct: t.all.Correct, Accuracy: ratio(t.all.Correct, t.all.Questions)}
	seen := map[string]bool{}
	for _, c := range append(append([]string{}, categories...), t.order...) {
		if r, ok := t.rows[c]; ok && !seen[c] {
			seen[c] = true
			r.Accuracy = ratio(r.Correct, r.Questions)
			rep.ByCategory = append(rep.ByCategory, *r)
		}
	}
	return rep
}
