package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Decode reads a JSON object into a tree of map[string]any, []any, string, json.Number, bool
// and nil; ok is false when text is not one JSON object.
func Decode(text string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return nil, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, false // trailing data
	}
	return obj, true
}

// Encode writes a tree as canonical JSON: compact, object keys sorted, numbers as written, no
// HTML escaping (the form the loaders give JSON bodies).
func Encode(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null" // a decoded tree always encodes
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
