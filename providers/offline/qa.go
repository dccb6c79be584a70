package offline

import (
	"strings"
	"unicode"

	"github.com/tkgraph/backfill/llm/wire"
)

// answerQuestion answers with the sentence of the context fact that shares the most words of
// three or more letters with the question, compared by their first four letters (live, lives),
// the first such fact on a tie, or "unknown" when none shares one.
func answerQuestion(in wire.AnswerInput) wire.AnswerOutput {
	q := stems(qaWords(in.Question, 3))
	best, bestScore := "", 0
	for _, line := range strings.Split(in.Context, "\n") {
		fact, ok := contextFact(line)
		if !ok {
			continue
		}
		score := 0
		for w := range stems(qaWords(fact, 3)) {
			if q[w] {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = fact, score
		}
	}
	if best == "" {
		return wire.AnswerOutput{Answer: "unknown"}
	}
	return wire.AnswerOutput{Answer: best}
}

// contextFact reads the sentence of one "  - FACT (Date range: FROM - TO)" line.
func contextFact(line string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
	if !ok {
		return "", false
	}
	if i := strings.LastIndex(rest, " (Date range:"); i >= 0 {
		rest = rest[:i]
	}
	return rest, rest != ""
}

// gradeAnswer is correct when every word of the gold answer appears among the answer's words.
func gradeAnswer(in wire.GradeInput) wire.GradeOutput {
	gold, got := qaWords(in.GoldAnswer, 1), qaWords(in.Answer, 1)
	if len(gold) == 0 {
		return wire.GradeOutput{}
	}
	for w := range gold {
		if !got[w] {
			return wire.GradeOutput{}
		}
	}
	return wire.GradeOutput{Correct: true}
}

// stems cuts words to their first four runes.
func stems(words map[string]bool) map[string]bool {
	out := make(map[string]bool, len(words))
	for w := range words {
		if r := []rune(w); len(r) > 4 {
			w = string(r[:4])
		}
		out[w] = true
	}
	return out
}

// qaWords is the set of lower-cased words (runs of letters and digits) of at least min runes.
func qaWords(s string, min int) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= min {
			out[stripParticle(w)] = true
		}
	}
	return out
}
