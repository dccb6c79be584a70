package offline

import (
	"strings"
	"unicode/utf8"
)

// Hangul syllables are composed as 0xAC00 + (initial*21 + medial)*28 + final.
const (
	hangulFirst = 0xAC00
	hangulLast  = 0xD7A3
	finalRieul  = 8  // ㄹ as a final consonant
	finalSsang  = 20 // ㅆ as a final consonant (past tense: 했, 었, 았)
)

func isSyllable(r rune) bool { return r >= hangulFirst && r <= hangulLast }

// finalOf is the final-consonant index of a syllable (0 = none, -1 = not a syllable).
func finalOf(r rune) int {
	if !isSyllable(r) {
		return -1
	}
	return int(r-hangulFirst) % 28
}

// hasHangul reports whether s contains a Hangul syllable.
func hasHangul(s string) bool {
	for _, r := range s {
		if isSyllable(r) {
			return true
		}
	}
	return false
}

// hasBatchim reports whether the last rune of s is a syllable with a final consonant. Words
// ending in other scripts count as vowel-final except digits read with one (1, 3, 6, 7, 8, 0).
func hasBatchim(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	if f := finalOf(r); f >= 0 {
		return f > 0
	}
	return strings.ContainsRune("136780", r)
}

// josa picks the particle form that fits the end of word: withFinal after a final consonant
// (은, 을, 이), withoutFinal otherwise (는, 를, 가).
func josa(word, withFinal, withoutFinal string) string {
	if hasBatchim(word) {
		return word + withFinal
	}
	return word + withoutFinal
}

// particles are the Korean particles stripped from the end of captured nouns, longest first.
var particles = []string{"에서", "에게", "으로", "까지", "부터", "은", "는", "이", "가", "의", "을", "를", "에", "로", "와", "과"}

// stripParticle removes one particle from the end of a Hangul word when at least two runes
// remain; other words are returned unchanged.
func stripParticle(w string) string {
	if !hasHangul(w) {
		return w
	}
	for _, p := range particles {
		if rest, ok := strings.CutSuffix(w, p); ok && utf8.RuneCountInString(rest) >= 2 {
			return rest
		}
	}
	return w
}

// pastWord reports whether a Korean verb word is in the past tense: one of its syllables ends in
// ㅆ (했, 었, 았, 뒀…), other than 있 (to be), which marks progressive forms.
func pastWord(w string) bool {
	for _, r := range w {
		if finalOf(r) == finalSsang && r != '있' {
			return true
		}
	}
	return false
}

// wordAt returns the whitespace-delimited word of s that contains byte offset i.
func wordAt(s string, i int) string {
	if i < 0 || i >= len(s) {
		return ""
	}
	start := strings.LastIndexAny(s[:i], " \t\n") + 1
	end := strings.IndexAny(s[i:], " \t\n")
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}
