package cypher

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func lit(t *testing.T, v any) string { return litIn(t, Neo4j, v) }

func litIn(t *testing.T, d Dialect, v any) string {
	t.Helper()
	var b strings.Builder
	if err := WriteLiteral(&b, d, v); err != nil {
		t.Fatalf("WriteLiteral(%s, %#v): %v", d, v, err)
	}
	return b.String()
}

func TestLiterals(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"null", nil, "null"},
		{"plain", "abc", `"abc"`},
		{"quotes", `say "hi" it's`, `"say \"hi\" it's"`},
		{"backslash", `a\b`, `"a\\b"`},
		{"newlines", "a\nb\r\tc", `"a\nb\r\tc"`},
		{"semicolon", "a;b", `"a\u003Bb"`},
		{"control", "a\x00b\x1b\x7f", `"a\u0000b\u001B\u007F"`},
		{"line separator", "a\u2028b", `"a\u2028b"`},
		{"unicode", "à 東京 🚀", `"à 東京 🚀"`},
		{"invalid utf8", "a\xffb", "\"a\uFFFDb\""},
		{"bool", true, "true"},
		{"int64", int64(-42), "-42"},
		{"float integral", 34.0, "34.0"},
		{"float", 0.1, "0.1"},
		{"float32 exact", float64(float32(0.1)), "0.1"},
		{"float tiny", float64(float32(1e-7)), "1e-07"},
		{"float huge", 1e21, "1e21"},
		{"negative zero", math.Copysign(0, -1), "-0.0"},
		{"time", time.Date(2026, 3, 2, 1, 0, 0, 0, time.FixedZone("X", 3600)), `datetime("2026-03-02T00:00:00Z")`},
		{"time micros", time.Date(2026, 3, 2, 0, 0, 0, 123456789, time.UTC), `datetime("2026-03-02T00:00:00.123456Z")`},
		{"strings", []string{"a", "b"}, `["a", "b"]`},
		{"floats", []float64{1, -0.25}, `[1.0, -0.25]`},
		{"ints", []int64{1, 2}, `[1, 2]`},
		{"empty", []string{}, `[]`},
		{"map", map[string]any{"b": int64(1), "a": "x", "first name": "y", "we`ird": true},
			"{a: \"x\", b: 1, `first name`: \"y\", `we``ird`: true}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := lit(t, tc.in); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestFalkorDBLiterals checks what differs on FalkorDB, whose parser (checked against FalkorDB
// 4.16.3) decodes \\ \" \n \r \t \b \f but no \u escape, and takes other characters raw.
func TestFalkorDBLiterals(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"escapes", "a\"b\\c\nd\re\tf\bg\fh", `"a\"b\\c\nd\re\tf\bg\fh"`},
		{"raw", "a;b\x1b\u2028 東京", "\"a;b\x1b\u2028 東京\""},
		{"nul dropped", "a\x00b", `"ab"`},
		{"time", time.Date(2026, 3, 2, 1, 0, 0, 0, time.FixedZone("X", 3600)), `"2026-03-02T00:00:00+00:00"`},
		{"time micros", time.Date(2026, 3, 2, 0, 0, 0, 123400999, time.UTC), `"2026-03-02T00:00:00.123400+00:00"`},
		{"literal", []Literal{"{a: 1}", "{a: 2}"}, `[{a: 1}, {a: 2}]`},
		{"float", []float64{1, 1e-7}, `[1.0, 1e-07]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := litIn(t, FalkorDB, tc.in); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLiteralErrors(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), []float64{1, math.Inf(-1)}, struct{}{},
		map[string]any{"k": make(chan int)}} {
		var b strings.Builder
		if err := WriteLiteral(&b, Neo4j, v); err == nil {
			t.Errorf("WriteLiteral(%#v) = %s, want an error", v, b.String())
		}
	}
}

// unquote decodes a Cypher string literal the way Memgraph's ParseStringLiteral does.
func unquote(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", fmt.Errorf("not quoted: %s", s)
	}
	s = s[1 : len(s)-1]
	var out []rune
	var pendingHigh rune
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			r, n := utf8.DecodeRuneInString(s[i:])
			out = append(out, r)
			i += n - 1
			continue
		}
		i++
		switch s[i] {
		case '\\', '\'', '"':
			out = append(out, rune(s[i]))
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'u':
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", err
			}
			i += 4
			if v >= 0xD800 && v <= 0xDBFF {
				pendingHigh = rune(v)
				continue
			}
			if pendingHigh != 0 {
				out = append(out, (pendingHigh-0xD800)<<10+(rune(v)-0xDC00)+0x10000)
				pendingHigh = 0
				continue
			}
			out = append(out, rune(v))
		default:
			return "", fmt.Errorf("bad escape \\%c", s[i])
		}
	}
	return string(out), nil
}

func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", `"'\;` + "\n\r\t\b\f\x00\x01\x7f", "ünï 東京 🚀 \u2028\u2029", `\u0041`, `ends with \`} {
		l := lit(t, s)
		if strings.ContainsAny(l, "\n\r;") {
			t.Errorf("literal of %q holds a raw newline or semicolon: %s", s, l)
		}
		got, err := unquote(l)
		if err != nil || got != s {
			t.Errorf("unquote(%s) = %q, %v; want %q", l, got, err, s)
		}
	}
}
