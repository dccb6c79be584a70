package cypher

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FalkorQuery is text prefixed with "CYPHER k=v … " for params (keys in sorted order, each
// value a FalkorDB literal): FalkorDB takes parameters only as such a prefix of the query text.
func FalkorQuery(text string, params map[string]any) (string, error) {
	if len(params) == 0 {
		return text, nil
	}
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("CYPHER ")
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		if err := WriteLiteral(&b, FalkorDB, params[k]); err != nil {
			return "", fmt.Errorf("writing parameter %s: %w", k, err)
		}
		b.WriteByte(' ')
	}
	b.WriteString(text)
	return b.String(), nil
}

// FalkorReply decodes a compact GRAPH.QUERY or GRAPH.RO_QUERY reply ([header, rows, statistics],
// or [statistics] for a query that returns nothing): the column names and the rows. A value is
// nil, a string, an int64, a bool, a float64, a []any (an array, or a vecf32 vector as float64s)
// or a map[string]any; nodes, edges, paths and points are errors (no reader asks for them).
func FalkorReply(reply any) (columns []string, rows [][]any, err error) {
	parts, ok := reply.([]any)
	if !ok {
		return nil, nil, fmt.Errorf("reply is %T, not an array", reply)
	}
	if len(parts) < 3 {
		return nil, nil, nil
	}
	header, ok := parts[0].([]any)
	if !ok {
		return nil, nil, fmt.Errorf("header is %T, not an array", parts[0])
	}
	for i, h := range header {
		pair, _ := h.([]any)
		if len(pair) != 2 {
			return nil, nil, fmt.Errorf("column %d is %v, not a [type, name] pair", i, h)
		}
		name, _ := pair[1].(string)
		columns = append(columns, name)
	}
	raw, ok := parts[1].([]any)
	if !ok {
		return nil, nil, fmt.Errorf("rows are %T, not an array", parts[1])
	}
	rows = make([][]any, len(raw))
	for i, r := range raw {
		cells, ok := r.([]any)
		if !ok {
			return nil, nil, fmt.Errorf("row %d is %T, not an array", i, r)
		}
		rows[i] = make([]any, len(cells))
		for j, c := range cells {
			v, err := compactValue(c)
			if err != nil {
				return nil, nil, fmt.Errorf("row %d, column %d: %w", i, j, err)
			}
			rows[i][j] = v
		}
	}
	return columns, rows, nil
}

// Value types of FalkorDB's compact reply format.
const (
	compactNull    = 1
	compactString  = 2
	compactInteger = 3
	compactBoolean = 4
	compactDouble  = 5
	compactArray   = 6
	compactMap     = 10
	compactVectorF = 12
)

// compactValue decodes one [type, value] cell.
func compactValue(c any) (any, error) {
	pair, ok := c.([]any)
	if !ok || len(pair) != 2 {
		return nil, fmt.Errorf("cell %v is not a [type, value] pair", c)
	}
	typ, _ := pair[0].(int64)
	v := pair[1]
	switch typ {
	case compactNull:
		return nil, nil
	case compactString, compactInteger:
		return v, nil
	case compactBoolean:
		return v == "true", nil
	case compactDouble:
		s, _ := v.(string)
		return strconv.ParseFloat(s, 64)
	case compactArray:
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			x, err := compactValue(it)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case compactMap: // key, [type, value], key, [type, value], …
		items, _ := v.([]any)
		if len(items)%2 != 0 {
			return nil, fmt.Errorf("a map of %d items, not key-value pairs", len(items))
		}
		out := make(map[string]any, len(items)/2)
		for i := 0; i < len(items); i += 2 {
			k, ok := items[i].(string)
			if !ok {
				return nil, fmt.Errorf("a map key is %T, not a string", items[i])
			}
			x, err := compactValue(items[i+1])
			if err != nil {
				return nil, fmt.Errorf("map key %s: %w", k, err)
			}
			out[k] = x
		}
		return out, nil
	case compactVectorF:
		items, _ := v.([]any)
		out := make([]any, len(items))
		for i, it := range items {
			s, _ := it.(string)
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	}
	return nil, fmt.Errorf("value type %d (a node, edge, path or point) is not read", typ)
}
