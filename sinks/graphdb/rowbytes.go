package graphdb

import "time"

// rowBytes estimates the Bolt (PackStream) size of a row: what bounds a batch's bytes
// (Options.BatchBytes). Strings count their length, numbers 9 bytes, times 16, plus a few bytes
// of marker per value; unknown types count 16.
func rowBytes(v any) int {
	switch x := v.(type) {
	case nil, bool:
		return 1
	case string:
		return len(x) + 3
	case int64, float64, int:
		return 9
	case time.Time:
		return 16
	case []float64:
		return 9*len(x) + 5
	case []int64:
		return 9*len(x) + 5
	case []bool:
		return len(x) + 5
	case []string:
		n := 5
		for _, s := range x {
			n += len(s) + 3
		}
		return n
	case []any:
		n := 5
		for _, e := range x {
			n += rowBytes(e)
		}
		return n
	case map[string]any:
		n := 5
		for k, e := range x {
			n += len(k) + 3 + rowBytes(e)
		}
		return n
	}
	return 16
}
