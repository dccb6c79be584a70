package loaders

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// decodeReason says why a benchmark element did not decode, in the input's terms (its field and
// the JSON kinds), never Go's type names.
func decodeReason(err error) (field, reason string) {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Field, fmt.Sprintf("%s is %s, want %s", cmp.Or(te.Field, "the element"), article(te.Value), jsonKind(te.Type))
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "", fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return "", err.Error()
}

// jsonKind names the JSON kind a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Float64, reflect.Int32, reflect.Uint64:
		return "a number"
	}
	return "another kind of value"
}

// article puts "a"/"an" before a JSON kind as encoding/json names it ("number", "object", ...).
func article(v string) string {
	switch v {
	case "object", "array":
		return "an " + v
	case "":
		return "a value"
	}
	return "a " + v
}
