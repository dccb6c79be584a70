package loaders

import "fmt"

// Default bounds on the shape of a JSON body (checkShape). Within them, the work a record costs
// (decoding, canonical JSON, pruning, fact paths, change lists, the prompt) grows with its
// bytes, not with its shape; a body past one is a quarantined row whose reason names the bound
// and the job key that raises it (Shape).
const (
	// MaxJSONDepth is the deepest nesting of objects and arrays (business records nest a few
	// levels; a 54 KB record nested 9,000 levels deep took 1 GB to prune).
	MaxJSONDepth = 64
	// MaxJSONValues is the most values (objects, arrays, strings, numbers, literals) in one body.
	MaxJSONValues = 100_000
	// MaxJSONPathBytes bounds the sum, over a body's values, of the length of each value's dotted
	// path (its keys, plus three bytes per array level): what listing every field of the record
	// costs, so long keys repeated deep inside large arrays are bounded too.
	MaxJSONPathBytes = 16 << 20
)

// Shape holds the bounds of a source's JSON bodies (sources[].max_json_depth,
// max_json_values, max_json_path_bytes); a zero field is its default (MaxJSONDepth,
// MaxJSONValues, MaxJSONPathBytes).
type Shape struct {
	Depth, Values, PathBytes int
}

// withDefaults is s with its zero fields set to their defaults.
func (s Shape) withDefaults() Shape {
	if s.Depth <= 0 {
		s.Depth = MaxJSONDepth
	}
	if s.Values <= 0 {
		s.Values = MaxJSONValues
	}
	if s.PathBytes <= 0 {
		s.PathBytes = MaxJSONPathBytes
	}
	return s
}

// checkShape scans a JSON text in one pass and reports the first bound of s (Shape, defaults
// for its zero fields) it passes. It does not validate the JSON: the decoder that follows does.
// It allocates only for a depth bound above the default.
func checkShape(b []byte, s Shape) error {
	s = s.withDefaults()
	var (
		objects [MaxJSONDepth + 1]bool // the container at each depth is an object
		keys    [MaxJSONDepth + 1]int  // the length of the current key (or 3 for an array level)
		depth   int
		path    int  // sum of keyLen[1..depth] plus one separator per level
		values  int  // values started
		work    int  // sum of path over the values
		expect  bool // the next string is an object key
	)
	inObject, keyLen := objects[:], keys[:]
	if s.Depth > MaxJSONDepth {
		inObject, keyLen = make([]bool, s.Depth+1), make([]int, s.Depth+1)
	}
	value := func() error {
		values++
		work += path
		switch {
		case values > s.Values:
			return fmt.Errorf("JSON body has more than %d values (the limit, sources[].max_json_values)", s.Values)
		case work > s.PathBytes:
			return fmt.Errorf("JSON body's field paths add up to more than %d bytes (the limit, sources[].max_json_path_bytes; long keys deep inside large arrays)", s.PathBytes)
		}
		return nil
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '"':
			start := i
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
			if expect { // a key: it names the value that follows
				path += i - start - 1 - keyLen[depth]
				keyLen[depth] = i - start - 1
				expect = false
				continue
			}
			if err := value(); err != nil {
				return err
			}
		case '{', '[':
			if err := value(); err != nil {
				return err
			}
			if depth == s.Depth {
				return fmt.Errorf("JSON body is nested more than %d levels deep (the limit, sources[].max_json_depth)", s.Depth)
			}
			depth++
			inObject[depth], keyLen[depth] = c == '{', 0
			if c == '[' {
				keyLen[depth] = 3 // "[*]"
			}
			path += keyLen[depth] + 1
			expect = c == '{'
		case '}', ']':
			if depth > 0 {
				path -= keyLen[depth] + 1
				depth--
			}
			expect = false
		case ',':
			expect = inObject[depth]
		case ':', ' ', '\t', '\n', '\r':
		default: // a number or literal: one value, however many bytes
			if err := value(); err != nil {
				return err
			}
			for i+1 < len(b) && !isDelim(b[i+1]) {
				i++
			}
		}
	}
	return nil
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r', ':':
		return true
	}
	return false
}
