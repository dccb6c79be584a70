package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Schema is the subset of JSON Schema that strict structured output accepts and that Validate
// checks: types (a list, so nullable values are ["string","null"]), object properties in
// declaration order, required, additionalProperties:false, array items and string enums.
// MaxLength caps a free-text string so that a constrained decoder cannot loop inside it; it is
// written only by MarshalCapped (for the servers that accept it, see Format) and never checked
// by Validate: it guards decoding, it does not judge answers.
type Schema struct {
	Types      []string
	Properties []Property // objects only, in the order the model should write them
	Required   []string
	Items      *Schema  // arrays only
	Enum       []string // allowed string values; empty means any
	MaxLength  int      // strings only; 0 means no cap
}

// Property is one named property of an object schema.
type Property struct {
	Name   string
	Schema *Schema
}

// MarshalJSON writes the schema with its properties in declaration order, so the wire schema and
// its hash are deterministic and the model fills fields in that order. It leaves out MaxLength
// (strict json_schema providers reject or ignore it).
func (s *Schema) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	return s.write(&b, false)
}

// MarshalCapped writes the schema like MarshalJSON, with the maxLength of every capped string.
func (s *Schema) MarshalCapped() ([]byte, error) {
	var b bytes.Buffer
	return s.write(&b, true)
}

func (s *Schema) write(b *bytes.Buffer, caps bool) ([]byte, error) {
	b.WriteString(`{"type":`)
	if len(s.Types) == 1 {
		writeJSON(b, s.Types[0])
	} else {
		writeJSON(b, s.Types)
	}
	if len(s.Enum) > 0 {
		b.WriteString(`,"enum":`)
		writeJSON(b, s.Enum)
	}
	if caps && s.MaxLength > 0 {
		fmt.Fprintf(b, `,"maxLength":%d`, s.MaxLength)
	}
	if s.has("object") {
		b.WriteString(`,"properties":{`)
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, p.Name)
			b.WriteByte(':')
			if _, err := p.Schema.write(b, caps); err != nil {
				return nil, err
			}
		}
		b.WriteString(`},"required":`)
		writeJSON(b, append([]string{}, s.Required...))
		b.WriteString(`,"additionalProperties":false`)
	}
	if s.Items != nil {
		b.WriteString(`,"items":`)
		if _, err := s.Items.write(b, caps); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) {
	raw, _ := json.Marshal(v) // strings and string slices always marshal
	b.Write(raw)
}

func (s *Schema) has(typ string) bool {
	for _, t := range s.Types {
		if t == typ {
			return true
		}
	}
	return false
}

// SchemaOf builds the strict schema of a Go type from its json tags: every property is required,
// pointers are nullable, slices are arrays. enums maps "TypeName.json_name" to allowed values;
// order maps a struct type name to the order of its properties (all of them), when it should
// differ from the declaration order.
func SchemaOf(t reflect.Type, enums, order map[string][]string) (*Schema, error) {
	return schemaOf(t, tables{enums: enums, order: order}, t.Name())
}

// tables are the per-type adjustments of SchemaOf; caps maps "TypeName.json_name" to the
// MaxLength of a string property (or of the strings of a string-list property).
type tables struct {
	enums, order map[string][]string
	caps         map[string]int
}

func schemaOf(t reflect.Type, tb tables, path string) (*Schema, error) {
	switch t.Kind() {
	case reflect.Pointer:
		s, err := schemaOf(t.Elem(), tb, path)
		if err != nil {
			return nil, err
		}
		if s.has("object") || s.has("array") {
			return nil, fmt.Errorf("building schema of %s: nullable %s not supported", path, s.Types[0])
		}
		s.Types = append(s.Types, "null")
		return s, nil
	case reflect.String:
		return &Schema{Types: []string{"string"}}, nil
	case reflect.Bool:
		return &Schema{Types: []string{"boolean"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &Schema{Types: []string{"integer"}}, nil
	case reflect.Float32, reflect.Float64:
		return &Schema{Types: []string{"number"}}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem(), tb, path+"[]")
		if err != nil {
			return nil, err
		}
		return &Schema{Types: []string{"array"}, Items: items}, nil
	case reflect.Struct:
		return structSchema(t, tb, path)
	default:
		return nil, fmt.Errorf("building schema of %s: unsupported kind %s", path, t.Kind())
	}
}

func structSchema(t reflect.Type, tb tables, path string) (*Schema, error) {
	s := &Schema{Types: []string{"object"}}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		ps, err := schemaOf(f.Type, tb, path+"."+name)
		if err != nil {
			return nil, err
		}
		if vals, ok := tb.enums[t.Name()+"."+name]; ok {
			ps.Enum = append([]string{}, vals...)
		}
		if n, ok := tb.caps[t.Name()+"."+name]; ok {
			capStrings(ps, n)
		}
		s.Properties = append(s.Properties, Property{Name: name, Schema: ps})
		s.Required = append(s.Required, name)
	}
	if order, ok := tb.order[t.Name()]; ok {
		return reorder(s, order, path)
	}
	return s, nil
}

// capStrings sets the MaxLength of a string schema, or of the items of a string list.
func capStrings(s *Schema, n int) {
	if s.Items != nil {
		s = s.Items
	}
	if s.has("string") {
		s.MaxLength = n
	}
}

// reorder puts the properties of s in the given order, which must name each exactly once.
func reorder(s *Schema, order []string, path string) (*Schema, error) {
	if len(order) != len(s.Properties) {
		return nil, fmt.Errorf("building schema of %s: order names %d of %d properties", path, len(order), len(s.Properties))
	}
	props := make([]Property, 0, len(order))
	for _, name := range order {
		i := slices.IndexFunc(s.Properties, func(p Property) bool { return p.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("building schema of %s: order names unknown property %q", path, name)
		}
		props = append(props, s.Properties[i])
	}
	s.Properties, s.Required = props, slices.Clone(order)
	return s, nil
}
