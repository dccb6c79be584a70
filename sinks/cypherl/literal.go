package cypherl

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// writeValue appends the Cypher literal of v to b.
func writeValue(b *strings.Builder, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		return writeFloat(b, x)
	case time.Time:
		b.WriteString(`datetime("`)
		b.WriteString(x.UTC().Format("2006-01-02T15:04:05.999999Z07:00"))
		b.WriteString(`")`)
	case []string:
		return writeList(b, x)
	case []float64:
		return writeList(b, x)
	case []int64:
		return writeList(b, x)
	case []bool:
		return writeList(b, x)
	case []any:
		return writeList(b, x)
	case map[string]any:
		return writeMap(b, x)
	default:
		return fmt.Errorf("writing literal: unsupported type %T", v)
	}
	return nil
}

func writeList[T any](b *strings.Builder, l []T) error {
	b.WriteByte('[')
	for i, v := range l {
		if i > 0 {
			b.WriteString(", ")
		}
		if err := writeValue(b, v); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// writeMap writes m with its keys in sorted order.
func writeMap(b *strings.Builder, m map[string]any) error {
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
		if err := writeValue(b, m[k]); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	b.WriteByte('}')
	return nil
}

// writeKey writes a map key, backtick-quoted unless it is a plain identifier.
func writeKey(b *strings.Builder, k string) {
	if cypher.ValidIdentifier(k) {
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

// writeString writes s as a double-quoted Cypher string literal.
func writeString(b *strings.Builder, s string) {
	s = strings.ToValidUTF8(s, "\uFFFD")
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
			if r < 0x20 || r == 0x7f || r == ';' || r == '\u2028' || r == '\u2029' {
				fmt.Fprintf(b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
}
