package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// SchemaError is the first place where an answer breaks its schema. Path looks like
// "facts[2].valid_at"; it is empty for the top-level value.
type SchemaError struct {
	Path string
	Msg  string
}

func (e *SchemaError) Error() string {
	if e.Path == "" {
		return "answer: " + e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Validate checks a JSON document against s and returns a *SchemaError for the first violation
// found (properties in schema order, then unexpected ones in sorted order), or a parse error
// for text that is not one JSON value.
func (s *Schema) Validate(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("parsing answer as JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("parsing answer as JSON: extra data after the JSON value")
	}
	return s.check(v, "")
}

func (s *Schema) check(v any, path string) error {
	if !s.typeOK(v) {
		return &SchemaError{Path: path, Msg: "expected " + strings.Join(s.Types, " or ") + ", got " + kindOf(v)}
	}
	switch x := v.(type) {
	case string:
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, x) {
			return &SchemaError{Path: path, Msg: fmt.Sprintf("%q is not one of %s", x, strings.Join(s.Enum, ", "))}
		}
	case []any:
		if s.Items == nil {
			return nil
		}
		for i, item := range x {
			if err := s.Items.check(item, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case map[string]any:
		return s.checkObject(x, path)
	}
	return nil
}

func (s *Schema) checkObject(obj map[string]any, path string) error {
	known := make(map[string]bool, len(s.Properties))
	for _, p := range s.Properties {
		known[p.Name] = true
		val, ok := obj[p.Name]
		if !ok {
			if slices.Contains(s.Required, p.Name) {
				return &SchemaError{Path: join(path, p.Name), Msg: "missing required property"}
			}
			continue
		}
		if err := p.Schema.check(val, join(path, p.Name)); err != nil {
			return err
		}
	}
	var extra []string
	for k := range obj {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return &SchemaError{Path: join(path, extra[0]), Msg: "unexpected property"}
	}
	return nil
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// typeOK reports whether v has one of the schema's types.
func (s *Schema) typeOK(v any) bool {
	for _, t := range s.Types {
		if t == kindOf(v) || (t == "number" && kindOf(v) == "integer") {
			return true
		}
	}
	return false
}

// kindOf names the JSON type of a decoded value ("integer" for whole numbers).
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}
