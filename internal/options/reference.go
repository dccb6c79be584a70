package options

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// Row is one line of the key reference: a key, or a list or mapping of sections, with what its
// value is (type, words, maximum, default, what empty means) and its doc line.
type Row struct {
	Top   string // the top-level key it is under (its own name at the top)
	Key   string // dotted, "[]" for an element of a list, "<name>" for an entry of a mapping
	Value string
	Doc   string
}

// Rows lists the reference rows of the section: every key, list and mapping of sections, depth
// first in declaration order.
func (s *Section) Rows() []Row {
	var out []Row
	s.rows("", "", &out)
	return out
}

func (s *Section) rows(top, path string, out *[]Row) {
	for _, e := range s.entries {
		t := top
		if t == "" {
			t = e.Name()
		}
		p := join(path, e.Name())
		switch e := e.(type) {
		case *Key:
			*out = append(*out, Row{Top: t, Key: p, Value: e.describe(), Doc: e.doc})
		case *Section:
			e.rows(t, p, out)
		case *List:
			*out = append(*out, Row{Top: t, Key: p + "[]", Value: "list", Doc: e.doc})
			e.Element().rows(t, p+"[]", out)
		case *Map:
			*out = append(*out, Row{Top: t, Key: p + ".<name>", Value: "mapping", Doc: e.doc})
			e.Element().rows(t, p+".<name>", out)
		}
	}
}

// describe says what a value of the key is: its type or words, its maximum, its default and
// what its empty value means.
func (k *Key) describe() string {
	var parts []string
	if ws := k.Words(); ws != nil {
		q := make([]string, len(ws))
		for i, w := range ws {
			q[i] = "`" + w + "`"
		}
		parts = append(parts, OneOf(q))
	} else {
		parts = append(parts, typeName(k.Type()))
	}
	if k.hasMax {
		parts = append(parts, "at most "+number(k.max))
	}
	switch {
	case k.defText != "":
		parts = append(parts, "default "+k.defText)
	case k.def != nil:
		parts = append(parts, "default "+valueText(*k.def))
	}
	if k.emptyOK {
		parts = append(parts, "empty: "+k.empty)
	}
	return strings.Join(parts, "; ")
}

// typeName names what a value of type t is.
func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "whole number"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "list of " + plural(typeName(t.Elem()))
	case reflect.Map:
		return "mapping of names to " + plural(typeName(t.Elem()))
	}
	return "text"
}

func plural(s string) string {
	if s == "text" || s == "true or false" {
		return s
	}
	return s + "s"
}

// valueText is a default as the reference writes it.
func valueText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return "`" + v.String() + "`"
	case reflect.Float32, reflect.Float64:
		return number(v.Float())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return number(float64(v.Int()))
	}
	return fmt.Sprint(v.Interface())
}

// number writes x as the reference does: whole numbers of five digits or more in groups of
// three ("1,073,741,824"), others as they are ("0.92", "2048").
func number(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if x != float64(int64(x)) || len(s) < 5 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Markdown renders rows as a Markdown table of key, value and meaning, for the file at (a path
// from the repository root): a doc line links to a guide by its path from the repository root
// ("[Batch mode](docs/cost.md#batch-mode)"), which becomes relative to that file.
func Markdown(rows []Row, at string) string {
	var b strings.Builder
	b.WriteString("| key | value | meaning |\n|---|---|---|\n")
	for _, r := range rows {
		doc := mdLink.ReplaceAllStringFunc(r.Doc, func(l string) string {
			m := mdLink.FindStringSubmatch(l)
			rel, err := filepath.Rel(filepath.Dir(at), m[2])
			if err != nil {
				return l
			}
			return "[" + m[1] + "](" + filepath.ToSlash(rel) + m[3] + ")"
		})
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Key, cell(r.Value), cell(doc))
	}
	return b.String()
}

// cell escapes what would end a table cell, and "<" outside code spans (Markdown would read it
// as HTML).
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 { // the even parts are outside code spans
		parts[i] = strings.ReplaceAll(parts[i], "<", "&lt;")
	}
	return strings.Join(parts, "`")
}

// mdLink is a doc line's link to a guide: [title](path from the repository root#anchor).
var mdLink = regexp.MustCompile(`\[([^]]+)\]\(([^)#]+)(#[^)]*)?\)`)

// Text renders rows as plain text for a terminal: each key, what its value is, and its doc line
// wrapped at width and indented; a link to a guide becomes its title and file.
func Text(rows []Row, width int) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s (%s)\n", r.Key, r.Value)
		doc := mdLink.ReplaceAllString(r.Doc, `"$1" in $2`)
		line := "    "
		for _, w := range strings.Fields(doc) {
			if len(line) > 4 && len(line)+1+len(w) > width {
				b.WriteString(line + "\n")
				line = "    "
			}
			if len(line) > 4 {
				line += " "
			}
			line += w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
