package records

import (
	"sort"
	"unicode/utf8"
)

// Op is the kind of a Change.
type Op int

// Kinds of change.
const (
	Changed Op = iota // a value at Path differs
	Added             // a field (or, with Elem, an array element) is new
	Removed           // a field (or array element) is gone
)

// Change is one difference between two snapshots of a record.
type Change struct {
	Path     Path
	Elem     bool // an element of the array at Path was added or removed
	Op       Op
	Old, New any // the values (Old of Changed and Removed, New of Changed and Added)
}

// Diff lists the changes from prev to cur (prev nil: every field is added), fields in key
// order. Arrays are compared as multisets of their elements: an element that moved is no
// change, an element that differs is one removed and one added.
func Diff(prev, cur map[string]any) []Change {
	var out []Change
	diffObject(nil, prev, cur, &out)
	return out
}

func diffObject(path Path, a, b map[string]any, out *[]Change) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		child := append(path[:len(path):len(path)], k)
		av, inA := a[k]
		bv, inB := b[k]
		switch {
		case !inA:
			*out = append(*out, Change{Path: child, Op: Added, New: bv})
		case !inB:
			*out = append(*out, Change{Path: child, Op: Removed, Old: av})
		default:
			diffValue(child, av, bv, out)
		}
	}
}

func diffValue(path Path, a, b any, out *[]Change) {
	am, aObj := a.(map[string]any)
	bm, bObj := b.(map[string]any)
	if aObj && bObj {
		diffObject(path, am, bm, out)
		return
	}
	al, aArr := a.([]any)
	bl, bArr := b.([]any)
	if aArr && bArr {
		diffArray(path, al, bl, out)
		return
	}
	if Encode(a) != Encode(b) {
		*out = append(*out, Change{Path: path, Op: Changed, Old: a, New: b})
	}
}

func diffArray(path Path, a, b []any, out *[]Change) {
	count := map[string]int{}
	for _, e := range b {
		count[Encode(e)]++
	}
	for _, e := range a {
		if k := Encode(e); count[k] > 0 {
			count[k]--
		} else {
			*out = append(*out, Change{Path: path, Elem: true, Op: Removed, Old: e})
		}
	}
	left := map[string]int{}
	for _, e := range a {
		left[Encode(e)]++
	}
	for _, e := range b {
		if k := Encode(e); left[k] > 0 {
			left[k]--
		} else {
			*out = append(*out, Change{Path: path, Elem: true, Op: Added, New: e})
		}
	}
}

// Leaves returns the paths of the scalar values a change adds, removes or changes (an empty
// object or array counts as a value at its own path).
func (c Change) Leaves() []Path {
	var out []Path
	if c.Op != Added {
		leaves(c.Path, c.Old, &out)
	}
	if c.Op != Removed {
		leaves(c.Path, c.New, &out)
	}
	return out
}

func leaves(path Path, v any, out *[]Path) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			*out = append(*out, path)
		}
		for k, e := range x {
			leaves(append(path[:len(path):len(path)], k), e, out)
		}
	case []any:
		if len(x) == 0 {
			*out = append(*out, path)
		}
		for _, e := range x {
			leaves(path, e, out)
		}
	default:
		*out = append(*out, path)
	}
}

// Touches reports whether the change adds, removes or changes a value at or under path.
func (c Change) Touches(path Path) bool {
	for _, l := range c.Leaves() {
		if l.Under(path) {
			return true
		}
	}
	return false
}

// Sets reports whether the change adds or changes a value at or under path (a value it only
// removes does not count).
func (c Change) Sets(path Path) bool {
	if c.Op == Removed {
		return false
	}
	var out []Path
	leaves(c.Path, c.New, &out)
	for _, l := range out {
		if l.Under(path) {
			return true
		}
	}
	return false
}

// Within reports whether every value the change touches lies at or under one of paths.
func (c Change) Within(paths []Path) bool {
	for _, l := range c.Leaves() {
		in := false
		for _, p := range paths {
			if l.Under(p) {
				in = true
				break
			}
		}
		if !in {
			return false
		}
	}
	return true
}

// String writes the change on one line: "path: old → new", "path: + new", "path: - old";
// array elements are written at "path[]". Values are canonical JSON cut to max runes (0: no
// limit) with "…".
func (c Change) String() string { return c.Format(0) }

// Format is String with values cut to max runes.
func (c Change) Format(max int) string {
	p := c.Path.String()
	if c.Elem {
		p += "[]"
	}
	switch c.Op {
	case Added:
		return p + ": + " + clip(Encode(c.New), max)
	case Removed:
		return p + ": - " + clip(Encode(c.Old), max)
	}
	return p + ": " + clip(Encode(c.Old), max) + " → " + clip(Encode(c.New), max)
}

func clip(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
