package resolve

import "unicode"

// particles are the Korean particles stripped from name ends, longest first.
var particles = [...]string{"에게", "에서", "께서", "한테", "은", "는", "이", "가", "의", "을", "를", "와", "과", "도"}

// minStem is the number of Hangul syllables that must end the rest of the last word for a particle
// to be stripped.
const minStem = 2

// isHangulSyllable reports whether r is a precomposed Hangul syllable (U+AC00–U+D7A3).
func isHangulSyllable(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }

// stripParticle removes one Korean particle from the end of r when the rest of the last word,
// ignoring trailing punctuation ("'지훈'은"), ends with at least minStem Hangul syllables.
func stripParticle(r []rune) []rune {
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
		if n >= minStem {
			return rest
		}
		return r // only the longest matching particle is considered
	}
	return r
}

// isDenseScript reports whether r belongs to a script whose single character carries about as much
// as a short Latin syllable: Hangul, Han ideographs, Hiragana, Katakana.
func isDenseScript(r rune) bool {
	return isHangulSyllable(r) || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}
