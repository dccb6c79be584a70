package namekey

import (
	"math"
	"slices"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Gate thresholds: a name is ambiguous when it is shorter than minLengthUnits, or when its entropy
// is below minEntropyBits and it has fewer than minDistinct distinct runes.
const (
	minLengthUnits = 3
	minEntropyBits = 1.5
	minDistinct    = 6
)

// Entropy returns the Shannon entropy, in bits, of the rune distribution of Normalize(name).
// Whitespace is ignored and each Hangul syllable counts as its jamo (NFD), so that a two-syllable
// Korean name ("지훈": ᄌ ᅵ ᄒ ᅮ ᆫ, 2.32 bits) is measured like a five-letter word and a
// repetition ("하하", 1 bit) stays low. The empty name has entropy 0.
func Entropy(name string) float64 {
	return entropyOf(gateRunes(Normalize(name)))
}

// Ambiguous reports whether a name is too weak to merge by the fuzzy passes (MinHash,
// embeddings) and must go to the LLM instead: it is too short (length units below 3, where a
// Hangul, Han or kana character counts 2 and any other non-space rune 1 — so fewer than 3 Latin
// runes or fewer than 2 Hangul syllables), or its Entropy is below 1.5 bits with fewer than 6
// distinct runes ("aaaa", "bob", "하하").
func Ambiguous(name string) bool {
	n := Normalize(name)
	units := 0
	for _, r := range n {
		switch {
		case unicode.IsSpace(r):
		case isDenseScript(r):
			units += 2
		default:
			units++
		}
	}
	if units < minLengthUnits {
		return true
	}
	g := gateRunes(n)
	return entropyOf(g) < minEntropyBits && distinct(g) < minDistinct
}

// gateRunes returns the non-space runes of a normalized name with Hangul syllables decomposed.
func gateRunes(n string) []rune {
	out := make([]rune, 0, len(n))
	for _, r := range n {
		switch {
		case unicode.IsSpace(r):
		case isHangulSyllable(r):
			out = append(out, []rune(norm.NFD.String(string(r)))...)
		default:
			out = append(out, r)
		}
	}
	return out
}

// entropyOf returns the Shannon entropy in bits of the distribution of runes in rs.
func entropyOf(rs []rune) float64 {
	if len(rs) == 0 {
		return 0
	}
	s := slices.Clone(rs)
	slices.Sort(s) // count runs in a fixed order so the float sum is deterministic
	total := float64(len(s))
	h := 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		p := float64(j-i) / total
		h -= p * math.Log2(p)
		i = j
	}
	return h
}

// distinct returns the number of distinct runes in rs.
func distinct(rs []rune) int {
	s := slices.Clone(rs)
	slices.Sort(s)
	return len(slices.Compact(s))
}
