package offline

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// sentence is one sentence of an episode.
type sentence struct {
	text     string // without its final punctuation
	question bool   // ended with a question mark
}

// splitSentences cuts text at sentence-ending punctuation followed by a space (or the end) and
// at line breaks.
func splitSentences(text string) []sentence {
	var out []sentence
	start := 0
	emit := func(end int, question bool) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, sentence{text: s, question: question})
		}
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == '\n' {
			emit(i, false)
			i += n
			start = i
			continue
		}
		if !isTerminator(r) {
			i += n
			continue
		}
		// Consume a run of terminators ("?!", "...").
		j, question := i, false
		for j < len(text) {
			r2, n2 := utf8.DecodeRuneInString(text[j:])
			if !isTerminator(r2) {
				break
			}
			question = question || r2 == '?' || r2 == '？'
			j += n2
		}
		next, _ := utf8.DecodeRuneInString(text[j:])
		if j == len(text) || unicode.IsSpace(next) || r != '.' {
			emit(i, question)
			start = j
		}
		i = j
	}
	emit(len(text), false)
	return out
}

func isTerminator(r rune) bool {
	switch r {
	case '.', '!', '?', '。', '！', '？', '…':
		return true
	}
	return false
}

// clause is a part of a sentence, with its byte offset in the sentence.
type clause struct {
	text string
	off  int
}

// splitClauses cuts an English sentence at commas, semicolons, colons and the conjunctions
// "and", "but", "so" and "then", but not at the comma of a date ("June 1, 2015").
func splitClauses(s string) []clause {
	var out []clause
	last := 0
	for _, m := range reClauseBreak.FindAllStringIndex(s, -1) {
		if m[0] > 0 && unicode.IsDigit(rune(s[m[0]-1])) && reYearNext.MatchString(s[m[1]:]) && strings.Contains(s[m[0]:m[1]], ",") {
			continue
		}
		if t := s[last:m[0]]; strings.TrimSpace(t) != "" {
			out = append(out, trimClause(t, last))
		}
		last = m[1]
	}
	if t := s[last:]; strings.TrimSpace(t) != "" {
		out = append(out, trimClause(t, last))
	}
	return out
}

func trimClause(t string, off int) clause {
	lead := len(t) - len(strings.TrimLeftFunc(t, unicode.IsSpace))
	return clause{text: strings.TrimSpace(t), off: off + lead}
}

// truncateWords shortens s to at most max runes, cutting at a word boundary and ending with "…".
func truncateWords(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)
	cut := string(runes[:max-1])
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRightFunc(cut, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}) + "…"
}

// normText is the comparison form of a sentence: lower case, single spaces, no final period.
func normText(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRight(s, ".!。 ")
}

// normName is the comparison form of an entity name: lower case, single spaces, no particle.
func normName(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(strings.Trim(s, " \"'“”‘’()[]")), " "))
	return stripParticle(s)
}

// isCapitalised reports whether a word starts with an upper-case letter.
func isCapitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// reYearNext is a year starting a text: what a date's comma comes before.
var reYearNext = regexp.MustCompile(`^\d{4}\b`)

// reClauseBreak separates the clauses of an English sentence.
var reClauseBreak = regexp.MustCompile(`(?i)\s*;\s*|\s*:\s+|\s*,\s*|\s+(?:and then|and|but|so|then)\s+`)
