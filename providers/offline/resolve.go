package offline

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tkgraph/backfill/internal/hangul"
	"github.com/tkgraph/backfill/llm/wire"
)

// resolveEntities answers resolve_entities. Two entities are the same when their types agree
// (equal, or one of them "Entity") and some spelling of one (name or alias) names the other:
// equal ignoring case, or both proper names (every Latin word capitalised) where the Latin
// tokens of one (Hangul romanized, a Korean full name split into family and given name) are a
// subset of the other's, the smaller set is not a family name alone, and neither is a
// possessive phrase ("Nisha's dad", "민수의 형").
func resolveEntities(in wire.ResolveInput) wire.ResolveOutput {
	byID := map[string]wire.CandidateIn{}
	for _, e := range in.Entities {
		byID[e.ID] = e
	}
	out := wire.ResolveOutput{Same: []string{}}
	for _, p := range in.Pairs {
		a, okA := byID[p.A]
		b, okB := byID[p.B]
		if okA && okB && strings.HasPrefix(p.ID, "P") && sameEntity(a, b) {
			out.Same = append(out.Same, p.ID)
		}
	}
	return out
}

// sameEntity applies the rule of resolveEntities to two candidates.
func sameEntity(a, b wire.CandidateIn) bool {
	generic := func(t string) bool { return t == "" || strings.EqualFold(t, "Entity") }
	if !generic(a.Type) && !generic(b.Type) && !strings.EqualFold(a.Type, b.Type) {
		return false
	}
	for _, x := range append([]string{a.Name}, a.Aliases...) {
		for _, y := range append([]string{b.Name}, b.Aliases...) {
			if sameName(x, y) {
				return true
			}
		}
	}
	return false
}

// sameName reports whether two spellings name the same entity under the token rule.
func sameName(x, y string) bool {
	x, y = cleanName(x), cleanName(y)
	if x == "" || y == "" {
		return false
	}
	if strings.EqualFold(x, y) {
		return true
	}
	if !properName(x) || !properName(y) {
		return false
	}
	x, y = strings.ToLower(x), strings.ToLower(y)
	if possessive(x) || possessive(y) {
		return false
	}
	tx, ty := hangul.Tokens(x), hangul.Tokens(y)
	if len(tx) > len(ty) {
		tx, ty = ty, tx
	}
	if hangul.OnlyFamilyNames(tx) {
		return false
	}
	for _, t := range tx {
		if !slices.Contains(ty, t) {
			return false
		}
	}
	return true
}

// properName reports whether every word of a name that starts with a Latin letter starts with a
// capital ("Seoyeon Park", "서연", "Minnesota Wolves", but not "dreams come true").
func properName(name string) bool {
	for _, w := range strings.Fields(name) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.Is(unicode.Latin, r) && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// possessive reports whether a name is a possessive phrase: an English "'s" or a Korean word
// ending in 의 followed by another word.
func possessive(name string) bool {
	if strings.Contains(name, "'s ") || strings.Contains(name, "’s ") {
		return true
	}
	words := strings.Fields(name)
	for _, w := range words[:max(0, len(words)-1)] {
		if strings.HasSuffix(w, "의") {
			return true
		}
	}
	return false
}

// dedupeFacts answers dedupe_facts. Two facts are duplicates when their normalised sentences
// are equal, or when their word sets overlap by at least 0.7 (Jaccard) and their valid_at and
// invalid_at are equal (both unknown counts as equal).
func dedupeFacts(in wire.DedupeInput) wire.DedupeOutput {
	byID := map[string]wire.FactIn{}
	for _, f := range in.Facts {
		byID[f.ID] = f
	}
	out := wire.DedupeOutput{Duplicates: []string{}}
	for _, p := range in.Pairs {
		a, okA := byID[p.A]
		b, okB := byID[p.B]
		if okA && okB && strings.HasPrefix(p.ID, "P") && sameFact(a, b) {
			out.Duplicates = append(out.Duplicates, p.ID)
		}
	}
	return out
}

// sameFact applies the rule of dedupeFacts to two facts.
func sameFact(a, b wire.FactIn) bool {
	if normText(a.Fact) == normText(b.Fact) {
		return true
	}
	if !sameDate(a.ValidAt, b.ValidAt) || !sameDate(a.InvalidAt, b.InvalidAt) {
		return false
	}
	return wordJaccard(a.Fact, b.Fact) >= 0.7
}

func sameDate(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// wordJaccard is the Jaccard similarity of the sets of lower-cased words of two sentences.
func wordJaccard(a, b string) float64 {
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(strings.ToLower(s)) {
			if w = strings.Trim(w, ".,;:!?\"'“”‘’()"); w != "" {
				m[w] = true
			}
		}
		return m
	}
	wa, wb := words(a), words(b)
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}
