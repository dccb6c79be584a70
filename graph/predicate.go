package graph

import (
	"strings"
	"unicode"
)

// Predicate puts a predicate in SCREAMING_SNAKE_CASE ("works at" → "WORKS_AT").
func Predicate(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(unicode.ToUpper(r))
		default:
			under = true
		}
	}
	if b.Len() == 0 {
		return "RELATES_TO"
	}
	return b.String()
}

// Cardinalities of a relation, per source entity (the ontology's edge_types[].cardinality).
const (
	// CardinalityOne: a source has one object at a time. A later-starting fact of the relation
	// from the same source with another object closes the earlier one, with no LLM call.
	CardinalityOne = "one"
	// CardinalityMany: a source has any number of objects at once. Only the judge closes a fact
	// of such a relation, and only one between the same two entities or one the new fact
	// explicitly negates (see the temporal stage's rules). Relations the ontology does not name
	// are many.
	CardinalityMany = "many"
)
