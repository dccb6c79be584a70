package wire

import "reflect"

// Tasks of `backfill eval --qa`: answer a benchmark question from the facts retrieved for it,
// then grade the answer against the gold answer.
const (
	TaskAnswerQuestion = "answer_question" // AnswerInput → AnswerOutput
	TaskGradeAnswer    = "grade_answer"    // GradeInput → GradeOutput
)

// AnswerInput asks for a short answer to a question, using only the retrieved facts.
type AnswerInput struct {
	QuestionTime string `json:"question_time"` // RFC 3339, UTC: when the question is asked
	Question     string `json:"question"`
	// Context is the retrieved facts in the Zep context format that `backfill query` prints:
	// "<FACTS>", one "  - FACT (Date range: FROM - TO)" line per fact, "</FACTS>".
	Context string `json:"context"`
}

// AnswerOutput is the answer; "unknown" when the facts do not tell.
type AnswerOutput struct {
	Answer string `json:"answer"`
}

// GradeInput asks whether an answer means the same as the gold answer.
type GradeInput struct {
	Question   string `json:"question"`
	GoldAnswer string `json:"gold_answer"`
	Answer     string `json:"answer"`
}

// GradeOutput is the judge's verdict.
type GradeOutput struct {
	Correct bool `json:"correct"`
}

// qaTaskTypes pairs the eval tasks with their input and output types; taskTypes includes them.
func qaTaskTypes() map[string][2]reflect.Type {
	return map[string][2]reflect.Type{
		TaskAnswerQuestion: {reflect.TypeFor[AnswerInput](), reflect.TypeFor[AnswerOutput]()},
		TaskGradeAnswer:    {reflect.TypeFor[GradeInput](), reflect.TypeFor[GradeOutput]()},
	}
}
