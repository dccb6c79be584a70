// Package hangul romanizes Korean names (Revised Romanization, with the usual Latin spellings of
// common family names) so that "서연" and "Seoyeon" can be compared as words. It is shared by the
// resolve stage and the offline responder; it has no state.
package hangul
