package hangul

import (
	"strings"
	"unicode/utf8"
)

// Revised Romanization of Korean, per jamo index of a precomposed syllable
// (0xAC00 + (initial*21 + medial)*28 + final).
var (
	romInitials = [19]string{"g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h"}
	romMedials  = [21]string{"a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu", "eu", "ui", "i"}
	romFinals   = [28]string{"", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t", "ng", "t", "t", "k", "t", "p", "t"}
)

// romSurnames are the usual Latin spellings of common Korean family names, which differ from the
// Revised Romanization (김 is "Kim", not "Gim").
var romSurnames = map[rune]string{
	'김': "kim", '이': "lee", '박': "park", '최': "choi", '정': "jung", '강': "kang", '조': "cho",
	'윤': "yoon", '장': "jang", '임': "lim", '한': "han", '오': "oh", '서': "seo", '신': "shin",
	'권': "kwon", '황': "hwang", '안': "ahn", '송': "song", '류': "ryu", '홍': "hong", '전': "jeon",
	'고': "ko", '문': "moon", '양': "yang", '손': "son", '배': "bae", '백': "baek", '허': "heo",
	'유': "yoo", '남': "nam", '심': "shim", '노': "noh", '하': "ha", '곽': "kwak", '성': "sung",
	'차': "cha", '주': "joo", '우': "woo", '구': "koo", '민': "min", '진': "jin", '나': "na",
}

// romanizeSyllables writes the Revised Romanization of the Hangul syllables of s; other runes
// are kept.
func romanizeSyllables(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0xAC00 || r > 0xD7A3 {
			b.WriteRune(r)
			continue
		}
		i := int(r - 0xAC00)
		b.WriteString(romInitials[i/(21*28)])
		b.WriteString(romMedials[(i/28)%21])
		b.WriteString(romFinals[i%28])
	}
	return b.String()
}

// Tokens returns the Latin tokens of a lower-cased, space-separated name: each word with
// its Hangul romanized and hyphens removed, except that a Hangul word of three or four syllables
// starting with a common family name gives two tokens, the family name in its usual spelling and
// the given name ("박서연" → "park", "seoyeon"), so that it meets "Seoyeon Park" and "Park
// Seoyeon"; a one-syllable family name written apart takes its usual spelling too ("김 지훈" →
// "kim", "jihun").
func Tokens(name string) []string {
	var out []string
	for _, w := range strings.Fields(name) {
		first, size := utf8.DecodeRuneInString(w)
		n := utf8.RuneCountInString(w)
		if sur, ok := romSurnames[first]; ok && allSyllables(w) {
			switch {
			case n == 1: // a family name written apart: "김 지훈"
				out = append(out, sur)
				continue
			case n == 3 || n == 4:
				out = append(out, sur, romanizeSyllables(w[size:]))
				continue
			}
		}
		out = append(out, strings.ReplaceAll(romanizeSyllables(w), "-", ""))
	}
	return out
}

// OnlyFamilyNames reports whether every token is the usual spelling of a Korean family name
// ("park", "kim"): such a name alone says too little to pair it with a full name.
func OnlyFamilyNames(tokens []string) bool {
	for _, t := range tokens {
		if !familyName[t] {
			return false
		}
	}
	return len(tokens) > 0
}

// familyName holds the values of romSurnames.
var familyName = func() map[string]bool {
	m := map[string]bool{}
	for _, v := range romSurnames {
		m[v] = true
	}
	return m
}()

// allSyllables reports whether every rune of w is a Hangul syllable.
func allSyllables(w string) bool {
	for _, r := range w {
		if r < 0xAC00 || r > 0xD7A3 {
			return false
		}
	}
	return w != ""
}
