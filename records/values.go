package records

import (
	"encoding/json"
	"errors"
	"strings"
)

// Why a path gives no values.
var (
	ErrAbsent    = errors.New("absent")
	ErrNotScalar = errors.New("not a string, number or boolean")
)

// Values reads the scalar values at path: strings (trimmed, empty ones skipped), numbers as
// written and booleans, each once, in record order. Arrays on the way are traversed element by
// element.
//
// An explicit null on the way or at the end, or an empty array, is a present field with no
// values (nil, nil): the record says there is none. ErrAbsent means the record does not say: a
// key on the way is missing (in an array: missing in every element). ErrNotScalar means the
// path ends at an object.
func Values(obj map[string]any, path Path) ([]string, error) {
	var out []string
	if err := values(obj, path, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func values(v any, path Path, out *[]string) error {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		if len(x) == 0 {
			return nil
		}
		var first error
		reached := false
		for _, e := range x {
			if err := values(e, path, out); err == nil {
				reached = true
			} else if first == nil {
				first = err
			}
		}
		if reached {
			return nil
		}
		return first
	}
	if len(path) == 0 {
		s := ""
		switch x := v.(type) {
		case string:
			s = strings.TrimSpace(x)
		case json.Number:
			s = x.String()
		case bool:
			s = map[bool]string{true: "true", false: "false"}[x]
		default:
			return ErrNotScalar
		}
		if s != "" && !contains(*out, s) {
			*out = append(*out, s)
		}
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return ErrAbsent
	}
	child, ok := m[path[0]]
	if !ok {
		return ErrAbsent
	}
	return values(child, path[1:], out)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
