package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Value is s with every control, bidirectional formatting and invalid byte escaped.
func Value(s string) string { return escape(s, false) }

// Message is Value keeping newlines and tabs.
func Message(s string) string { return escape(s, true) }

// unsafe reports whether r must not reach a terminal raw (tabs and newlines aside).
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func escape(s string, keepLines bool) string {
	if clean(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unsafe(r):
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u202e'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no escaping.
func clean(s string, keepLines bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) {
			return false
		}
		i += n
	}
	return true
}

// JSON is encoded JSON with the C1 and bidirectional formatting characters its encoder leaves raw
// escaped as \uXXXX (they can only occur inside strings, where the escape means the same).
func JSON(b []byte) []byte {
	if clean(string(b), true) {
		return b
	}
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= 0x80 && unsafe(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
