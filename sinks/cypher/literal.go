package cypher

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Literal is Cypher text already rendered by WriteLiteral: WriteLiteral writes it as it is.
type Literal string

// WriteLiteral appends the Cypher literal of v in dialect d to b. Strings, numbers, booleans,
// times (see literals.time), lists of them, maps with string keys (keys sorted) and Literal are
// written; NaN, ±Inf and other types are errors.
func WriteLiteral(b *strings.Builder, d Dialect, v any) error { return literals{d}.value(b, v) }

// literals writes literals of one dialect.
type literals struct{ d Dialect }

func (w literals) value(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case Literal:
		b.WriteString(string(x))
	case string:
		w.string(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		return writeFloat(b, x)
	case time.Time:
		w.time(b, x)
	case []string:
		return writeList(w, b, x)
	case []float64:
		return writeList(w, b, x)
	case []int64:
		return writeList(w, b, x)
	case []bool:
		return writeList(w, b, x)
	case []any:
		return writeList(w, b, x)
	case []Literal:
		return writeList(w, b, x)
	case map[string]any:
		return w.mapping(b, x)
	default:
		return fmt.Errorf("writing literal: unsupported type %T", v)
	}
	return nil
}

func writeList[T any](w literals, b *strings.Builder, l []T) error {
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := w.value(b, v); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// mapping writes m with its keys in sorted order.
func (w literals) mapping(b *strings.Builder, m map[string]any) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		writeKey(b, k)
		b.WriteString(": ")
		if err := w.value(b, m[k]); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// writeKey writes a map key, backtick-quoted unless it is a plain identifier.
func writeKey(b *strings.Builder, k string) {
	if ValidIdentifier(k) {
		b.WriteString(k)
		return
	}
	b.WriteByte('`')
	b.WriteString(strings.ReplaceAll(strings.ToValidUTF8(k, "\uFFFD"), "`", "``"))
	b.WriteByte('`')
}

// writeFloat writes f so that it reads back as a float: with a "." or an exponent.
func writeFloat(b *strings.Builder, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("writing literal: %v has no Cypher literal", f)
	}
	bits := 64
	if float64(float32(f)) == f {
		bits = 32
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	s = strings.Replace(s, "e+", "e", 1)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	b.WriteString(s)
	return nil
}

// time writes t in UTC: on FalkorDB as the string TimeText gives (Graphiti's FalkorDriver stores
// datetimes as strings), elsewhere as datetime("…") with "Z" and at most six fractional digits.
func (w literals) time(b *strings.Builder, t time.Time) {
	if w.d == FalkorDB {
		w.string(b, TimeText(t))
		return
	}
	b.WriteString(`datetime("`)
	b.WriteString(t.UTC().Format("2006-01-02T15:04:05.999999Z07:00"))
	b.WriteString(`")`)
}

// TimeText is t as graphiti-core's FalkorDriver stores a datetime: Python's isoformat() of the
// UTC datetime ("2024-05-01T09:30:00+00:00", or with six fractional digits when the
// microseconds are not zero; finer digits are cut). Graphiti compares these strings
// lexicographically in its search filters, which only works when every value has this form.
func TimeText(t time.Time) string {
	t = t.UTC().Truncate(time.Microsecond)
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// string writes s as a double-quoted string literal. Invalid UTF-8 becomes U+FFFD. Memgraph
// and Neo4j literals escape control characters, U+2028, U+2029 and ";" as \uXXXX, so a line
// splitter that ignores quotes still sees one statement per line; FalkorDB's parser knows no
// \u escape, so there only \\ \" \n \r \t \b \f are escaped, NUL is dropped (as
// graphiti-core's FalkorDriver drops it: the server reads the query as a C string) and every
// other character is written as it is.
func (w literals) string(b *strings.Builder, s string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if w.d == FalkorDB {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if w.d != FalkorDB && (r < 0x20 || r == 0x7f || r == ';' || r == '\u2028' || r == '\u2029') {
				fmt.Fprintf(b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
