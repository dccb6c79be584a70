package evaluation

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// terms splits a text into search terms the way a Lucene standard analyzer without stop words
// does, near enough: NFKC, lower case, runs of letters and digits (apostrophes split words).
func terms(s string) []string {
	s = strings.ToLower(norm.NFKC.String(s))
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// answerTerms is the comparison form of a gold answer or a retrieved text: terms without the
// English articles (the SQuAD answer normalisation).
func answerTerms(s string) []string {
	var out []string
	for _, t := range terms(s) {
		if t != "a" && t != "an" && t != "the" {
			out = append(out, t)
		}
	}
	return out
}

// containsRun reports whether needle occurs in hay as a contiguous run of terms.
func containsRun(hay, needle []string) bool {
	if len(needle) == 0 {
		return false
	}
outer:
	for i := 0; i+len(needle) <= len(hay); i++ {
		for j, t := range needle {
			if hay[i+j] != t {
				continue outer
			}
		}
		return true
	}
	return false
}
