package cypher

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/tkgraph/backfill/sinks"
)

// putAttributes copies attrs into p as top-level properties, skipping the reserved keys, empty
// keys and values that convert to nothing (see PropertyValue).
func putAttributes(p Row, attrs map[string]any, reserved []string) {
	for k, v := range attrs {
		if k == "" || slices.Contains(reserved, k) {
			continue
		}
		if pv, ok := PropertyValue(v); ok {
			p[k] = pv
		}
	}
}

// PropertyValue converts an attribute value to a value a node property can hold: string, bool,
// int64, float64, time.Time (UTC), or a list of one of them ([]string, []bool, []int64,
// []float64; a list mixing integers and floats becomes []float64). Maps, lists of mixed or
// nested values and other types become their canonical JSON text. nil, NaN and ±Inf give false.
func PropertyValue(v any) (any, bool) {
	if v == nil {
		return nil, false
	}
	if s, ok := scalar(v); ok {
		if f, isF := s.(float64); isF && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nil, false
		}
		return s, true
	}
	rv := reflect.ValueOf(v)
	if (rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array) && rv.Type().Elem().Kind() != reflect.Uint8 {
		if l, ok := scalarList(rv); ok {
			return l, true
		}
	}
	s, err := sinks.CanonicalJSON(v)
	if err != nil {
		s = fmt.Sprint(v)
	}
	return s, true
}

// scalar converts v to string, bool, int64, float64 or time.Time.
func scalar(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case bool:
		return x, true
	case time.Time:
		return x.UTC(), true
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i, true
		}
		if f, err := x.Float64(); err == nil {
			return f, true
		}
		return x.String(), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return nil, false
}

// scalarList converts a list whose elements are all strings, all bools or all numbers.
func scalarList(rv reflect.Value) (any, bool) {
	n := rv.Len()
	var strs []string
	var bools []bool
	var ints []int64
	var floats []float64
	anyFloat := false
	for i := range n {
		s, ok := scalar(rv.Index(i).Interface())
		if !ok {
			return nil, false
		}
		switch x := s.(type) {
		case string:
			strs = append(strs, x)
		case bool:
			bools = append(bools, x)
		case int64:
			ints = append(ints, x)
			floats = append(floats, float64(x))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, false
			}
			anyFloat = true
			floats = append(floats, x)
		default:
			return nil, false
		}
	}
	switch {
	case n == 0 || len(strs) == n:
		return append([]string{}, strs...), true
	case len(bools) == n:
		return bools, true
	case len(floats) == n && anyFloat:
		return floats, true
	case len(ints) == n:
		return ints, true
	}
	return nil, false
}
