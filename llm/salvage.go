package llm

import (
	"bytes"
	"encoding/json"

	"github.com/tkgraph/backfill/llm/wire"
)

// salvageVersion names the rules of salvage; it is part of every task version (tokenPolicy), as
// they decide which answer a cut request gives.
const salvageVersion = "salvage-v1"

// maxSalvageCuts bounds the cut points salvage tries, newest first, before it gives up.
const maxSalvageCuts = 64

// salvage repairs an answer that max_tokens cut: it keeps the answer up to the end of its last
// complete list item whose closing makes an answer the task's schema accepts, closes the open
// lists and objects, and drops the list items that repeat an earlier item of the same list
// (equal as JSON values). It returns the repaired answer, how many repeated items it dropped,
// and whether it found a valid one. An answer cut inside its first list item, or whose lists
// close into an invalid answer (a required field after the cut list missing), has no salvage.
func salvage(t *wire.Task, cut []byte) (answer []byte, repeats int, ok bool) {
	cuts := cutPoints(cut)
	for i := len(cuts) - 1; i >= 0 && i >= len(cuts)-maxSalvageCuts; i-- {
		p := cuts[i]
		closed := append(append([]byte(nil), cut[:p.at]...), p.closing...)
		var v any
		dec := json.NewDecoder(bytes.NewReader(closed))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			continue
		}
		v, n := dropRepeats(v)
		out, err := json.Marshal(v)
		if err != nil || checkAnswer(t, out) != nil {
			continue
		}
		return out, n, true
	}
	return nil, 0, false
}

// cutPoint is a place where a cut answer can end: the offset just after a complete item of a
// list, and the brackets that close the lists and objects open there.
type cutPoint struct {
	at      int
	closing []byte
}

// cutPoints scans a cut JSON answer (after leading spaces, an object or a list) and returns the
// offsets just after each complete item of a list, in order, with their closing brackets.
func cutPoints(b []byte) []cutPoint {
	var (
		stack    []byte // open containers: '{' or '['
		inString bool
		escaped  bool
		scalar   bool // inside a number, true, false or null
		out      []cutPoint
	)
	closeAll := func() []byte {
		c := make([]byte, 0, len(stack))
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i] == '{' {
				c = append(c, '}')
			} else {
				c = append(c, ']')
			}
		}
		return c
	}
	// itemEnd records a cut point after a value that ends at offset at, when the value is
	// an item of a list.
	itemEnd := func(at int) {
		if len(stack) > 0 && stack[len(stack)-1] == '[' {
			out = append(out, cutPoint{at: at, closing: closeAll()})
		}
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				// A string is an item only where it is not an object key; in a list it is.
				itemEnd(i + 1)
			}
			continue
		}
		if scalar {
			if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				scalar = false
				itemEnd(i)
			} else {
				continue
			}
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) == 0 {
				return out
			}
			stack = stack[:len(stack)-1]
			itemEnd(i + 1)
		case ',', ':', ' ', '\n', '\t', '\r':
		default:
			scalar = true
		}
	}
	return out
}

// dropRepeats removes, in every list of v (nested ones included), the items equal to an earlier
// item of the same list, and returns v and how many it removed.
func dropRepeats(v any) (any, int) {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			var m int
			x[k], m = dropRepeats(e)
			n += m
		}
	case []any:
		seen := map[string]bool{}
		kept := x[:0]
		for _, e := range x {
			e, m := dropRepeats(e)
			n += m
			key, err := json.Marshal(e)
			if err == nil && seen[string(key)] {
				n++
				continue
			}
			seen[string(key)] = true
			kept = append(kept, e)
		}
		return kept, n
	}
	return v, n
}
