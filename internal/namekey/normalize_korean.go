package namekey

import (
	"strings"
	"unicode"
)

// particles are the Korean particles a name may end with, longest first.
var particles = [...]string{"에게", "에서", "께서", "한테", "은", "는", "이", "가", "의", "을", "를", "와", "과", "도"}

// minStem is the number of Hangul syllables that must end the rest of the last word for a
// trailing particle to be removed.
const minStem = 2

// maxStrips is how many particles Stems removes one after the other ("지훈이가" → "지훈이" → "지훈").
const maxStrips = 2

// isHangulSyllable reports whether r is a precomposed Hangul syllable (U+AC00–U+D7A3).
func isHangulSyllable(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// StripParticle removes one Korean particle (은/는/이/가/의/을/를/에게/에서/와/과/도/께서/한테,
// longest first) from the end of a normalized name when the rest of its last word, ignoring
// trailing punctuation ("'지훈'은"), ends with at least two Hangul syllables: "지훈은" → "지훈",
// "lg전자는" → "lg전자". ok is false, and key is returned unchanged, when nothing was removed
// ("이가", "서은", "alice는").
func StripParticle(key string) (stem string, ok bool) {
	r := []rune(key)
	for _, p := range particles {
		pr := []rune(p)
		if len(r) < len(pr) || string(r[len(r)-len(pr):]) != p {
			continue
		}
		rest := r[:len(r)-len(pr)]
		end := len(rest)
		for end > 0 && trimmable(rest[end-1]) {
			end--
		}
		n := 0
		for i := end - 1; i >= 0 && isHangulSyllable(rest[i]); i-- {
			n++
		}
		if n < minStem {
			return key, false // only the longest matching particle is considered
		}
		stem = strings.TrimSpace(string(trimPunct(rest)))
		return stem, stem != ""
	}
	return key, false
}

// Stems returns the forms of a normalized name with one, then two trailing particles removed,
// nearest first: Stems("지훈이가") = ["지훈이", "지훈"], Stems("이지은") = ["이지"],
// Stems("alice") = nil. Resolution merges a name with a stem only when the stem is itself a name
// of the group, so "이지은" stays whole unless "이지" is also mentioned, and "이지은은" meets "이지은".
func Stems(key string) []string {
	var out []string
	for range maxStrips {
		stem, ok := StripParticle(key)
		if !ok {
			break
		}
		out = append(out, stem)
		key = stem
	}
	return out
}

// isDenseScript reports whether r belongs to a script whose single character carries about as much
// as a short Latin syllable: Hangul, Han ideographs, Hiragana, Katakana.
func isDenseScript(r rune) bool {
	return isHangulSyllable(r) || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
