// Package suggestions finds the known names nearest to one that matched nothing, for the "did you
// mean …?" hints of errors (job keys, entities, groups). Names are compared case-folded by edit
// distance over runes; a name that contains the other, or is contained in it, ranks first. It has
// no state beyond a Nearest being filled.
package suggestions
