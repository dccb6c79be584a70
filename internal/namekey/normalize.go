package namekey

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Normalize returns the comparison key of an entity name, the key of the exact-name pass:
//
//  1. Unicode NFKC, full case folding, NFKC again (NFKC_Casefold);
//  2. format characters (zero-width spaces and joiners, BOM) and control characters removed;
//  3. whitespace runs collapsed to one space and trimmed;
//  4. surrounding punctuation and quotes trimmed; a bracket is kept when its partner is inside
//     the name ("Alice (PM)" keeps its parenthesis, "(Alice)" loses both).
//
// Normalize keeps Korean particles: whether "이지은" ends in the particle 은 depends on the other
// names of the group, so particles are compared, not stripped (see Stems). Normalize is
// idempotent.
func Normalize(name string) string {
	s := norm.NFKC.String(name)
	s = cases.Fold().String(s) // a Caser is stateful: one per call
	s = norm.NFKC.String(s)
	s = strings.Join(strings.Fields(strings.Map(dropInvisible, s)), " ")
	return string(trimPunct([]rune(s)))
}

// dropInvisible removes format (Cf) and control (Cc) runes, keeping whitespace controls so that
// strings.Fields can turn them into separators.
func dropInvisible(r rune) rune {
	if unicode.IsSpace(r) {
		return r
	}
	if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Cc, r) {
		return -1
	}
	return r
}

// closingOf returns the closing partner of an opening bracket or quote (after NFKC, so fullwidth
// forms are already ASCII). Straight quotes are their own partner.
func closingOf(r rune) (rune, bool) {
	switch r {
	case '(':
		return ')', true
	case '[':
		return ']', true
	case '{':
		return '}', true
	case '「':
		return '」', true
	case '『':
		return '』', true
	case '【':
		return '】', true
	case '〈':
		return '〉', true
	case '《':
		return '》', true
	case '〔':
		return '〕', true
	case '«':
		return '»', true
	case '‹':
		return '›', true
	case '“':
		return '”', true
	case '‘':
		return '’', true
	case '"', '\'':
		return r, true
	}
	return 0, false
}

// openingOf returns the opening partner of a closing bracket or quote.
func openingOf(r rune) (rune, bool) {
	for _, o := range "([{「『【〈《〔«‹“‘\"'" {
		if c, _ := closingOf(o); c == r {
			return o, true
		}
	}
	return 0, false
}

// trimmable reports whether r is punctuation or a quote-like symbol that may surround a name.
func trimmable(r rune) bool {
	return unicode.IsPunct(r) || r == '`' || r == '´'
}

// trimPunct trims whitespace and surrounding punctuation from r. A pair that encloses the whole
// name ("(a)", not "(a) (b)") is trimmed together; a lone bracket is trimmed only when its
// partner is not in the name.
func trimPunct(r []rune) []rune {
	for {
		for len(r) > 0 && unicode.IsSpace(r[0]) {
			r = r[1:]
		}
		for len(r) > 0 && unicode.IsSpace(r[len(r)-1]) {
			r = r[:len(r)-1]
		}
		if len(r) == 0 {
			return r
		}
		first, last := r[0], r[len(r)-1]
		switch {
		case len(r) >= 2 && trimmable(first) && isPair(first, last) && !slices.Contains(r[1:len(r)-1], last):
			r = r[1 : len(r)-1]
		case trimmable(first) && !hasPartnerAfter(r, first):
			r = r[1:]
		case trimmable(last) && !hasPartnerBefore(r, last):
			r = r[:len(r)-1]
		default:
			return r
		}
	}
}

// hasPartnerAfter reports whether r[0] is a distinct opening bracket whose closer occurs later.
func hasPartnerAfter(r []rune, open rune) bool {
	c, ok := closingOf(open)
	if !ok || c == open {
		return false
	}
	for _, x := range r[1:] {
		if x == c {
			return true
		}
	}
	return false
}

// hasPartnerBefore reports whether the last rune is a distinct closing bracket whose opener occurs
// earlier.
func hasPartnerBefore(r []rune, closer rune) bool {
	o, ok := openingOf(closer)
	if !ok || o == closer {
		return false
	}
	for _, x := range r[:len(r)-1] {
		if x == o {
			return true
		}
	}
	return false
}

// isPair reports whether open and closer are partners.
func isPair(open, closer rune) bool {
	c, ok := closingOf(open)
	return ok && c == closer
}
