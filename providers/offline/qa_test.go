package offline

import (
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestAnswerQuestion(t *testing.T) {
	ctx := "<FACTS>\n  - Alice works at Kakao. (Date range: 2024-01-08T14:01:00Z - 2024-03-02T00:00:00Z)\n" +
		"  - Alice works at Naver. (Date range: 2024-03-02T00:00:00Z - present)\n  - Alice lives in Pangyo. (Date range: date unknown - present)\n</FACTS>"
	for _, tc := range []struct{ question, context, want string }{
		{"Where does Alice live?", ctx, "Alice lives in Pangyo."},
		{"Which company did Alice work at?", ctx, "Alice works at Kakao."}, // tie: the first fact
		{"What is Bob's favourite colour?", ctx, "unknown"},
		{"Where does Alice live?", "<FACTS>\n</FACTS>", "unknown"},
	} {
		if got := answerQuestion(wire.AnswerInput{Question: tc.question, Context: tc.context}).Answer; got != tc.want {
			t.Errorf("%q: answer %q, want %q", tc.question, got, tc.want)
		}
	}
}

func TestGradeAnswer(t *testing.T) {
	for _, tc := range []struct {
		gold, answer string
		want         bool
	}{
		{"Naver", "Alice works at Naver.", true},
		{"7 May 2023", "on 7 May, 2023", true},
		{"7 May 2023", "8 May 2023", false},
		{"Naver", "unknown", false},
		{"", "anything", false},
		{"네이버", "지훈은 네이버에서 일한다", true},
	} {
		if got := gradeAnswer(wire.GradeInput{GoldAnswer: tc.gold, Answer: tc.answer}).Correct; got != tc.want {
			t.Errorf("gold %q, answer %q: correct %v, want %v", tc.gold, tc.answer, got, tc.want)
		}
	}
}
