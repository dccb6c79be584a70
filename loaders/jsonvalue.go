package loaders

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// lookup finds a field of a JSON object by name: the whole name as one key first, then, for a
// dotted name, its parts through nested objects. A missing field or a null is absent.
func lookup(obj map[string]json.RawMessage, name string) json.RawMessage {
	if raw, ok := obj[name]; ok || !strings.Contains(name, ".") {
		return raw
	}
	parts := strings.Split(name, ".")
	cur := obj
	for _, p := range parts[:len(parts)-1] {
		raw := bytes.TrimSpace(cur[p])
		if len(raw) == 0 || raw[0] != '{' {
			return nil
		}
		var next map[string]json.RawMessage
		if json.Unmarshal(raw, &next) != nil {
			return nil
		}
		cur = next
	}
	return cur[parts[len(parts)-1]]
}

// decodeValue turns one JSON value into a row value: nil, string, json.Number, bool, badUTF8,
// or an empty jsonText for an object or array (it only marks one).
func decodeValue(raw json.RawMessage) any { return decodeJSON(raw, false, Shape{}) }

// decodeBody is decodeValue for a body: an object or array is its canonical JSON, within the
// bounds of shape (badValue past one).
func decodeBody(raw json.RawMessage, shape Shape) any { return decodeJSON(raw, true, shape) }

// decodeJSON is decodeValue, or with canon decodeBody.
func decodeJSON(raw json.RawMessage, canon bool, shape Shape) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	switch raw[0] {
	case 'n':
		return nil
	case 't':
		return true
	case 'f':
		return false
	case '"':
		if !utf8.Valid(raw) {
			return badUTF8{}
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return badUTF8{}
		}
		return s
	case '{', '[':
		if !utf8.Valid(raw) {
			return badUTF8{}
		}
		if !canon {
			return jsonText("")
		}
		if err := checkShape(raw, shape); err != nil {
			return badValue{err.Error()}
		}
		s, err := canonicalJSON(raw)
		if err != nil {
			return badUTF8{}
		}
		return jsonText(s)
	}
	return json.Number(raw)
}

// canonicalJSON re-encodes a JSON value compactly with sorted object keys, numbers as written and
// no HTML escaping.
func canonicalJSON(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
