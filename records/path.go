package records

import (
	"fmt"
	"strings"
)

// Path is a field path of a JSON record: its object keys from the root. Arrays are traversed
// transparently, so a path names a key of every element of an array it passes through.
type Path []string

// String writes the path dotted.
func (p Path) String() string { return strings.Join(p, ".") }

// ParsePath reads a dotted field path such as "issue.assignees[*].login". A key may end in
// "[*]" (or "[]"), which says that its value is an array whose elements the path continues into;
// arrays are traversed whether or not it is written. Keys must be non-empty and hold none of
// . [ ] *.
func ParsePath(s string) (Path, error) {
	segs, err := split(s)
	if err != nil {
		return nil, err
	}
	for _, seg := range segs {
		if strings.Contains(seg, "*") {
			return nil, fmt.Errorf("path %q: a field path has no wildcards (only patterns do)", s)
		}
	}
	return segs, nil
}

// split cuts a path or pattern into keys, dropping array markers.
func split(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty path")
	}
	var out []string
	for _, seg := range strings.Split(s, ".") {
		seg = strings.TrimSuffix(strings.TrimSuffix(seg, "[*]"), "[]")
		switch {
		case seg == "":
			return nil, fmt.Errorf("path %q: empty key", s)
		case strings.ContainsAny(seg, "[]"):
			return nil, fmt.Errorf("path %q: key %q: only [*] may follow a key (array elements are not addressed by index)", s, seg)
		}
		out = append(out, seg)
	}
	return out, nil
}

// Pattern is a glob over field paths: keys match literally, "*" inside a key matches any run
// of characters of one key, and a key "**" matches any number of keys (none included).
type Pattern struct {
	text string
	segs []string
}

// ParsePattern reads a pattern such as "**.node_id", "sender.avatar_*" or "issue.labels[*].url".
func ParsePattern(s string) (Pattern, error) {
	segs, err := split(s)
	if err != nil {
		return Pattern{}, err
	}
	for _, seg := range segs {
		if strings.Contains(seg, "**") && seg != "**" {
			return Pattern{}, fmt.Errorf("pattern %q: \"**\" must be a whole key", s)
		}
	}
	return Pattern{text: s, segs: segs}, nil
}

// String is the pattern as written.
func (p Pattern) String() string { return p.text }

// Match reports whether the pattern matches the whole path.
func (p Pattern) Match(path Path) bool { return matchSegs(p.segs, path) }

// MatchPrefix reports whether the pattern matches the path or one of its ancestors.
func (p Pattern) MatchPrefix(path Path) bool {
	for n := len(path); n >= 1; n-- {
		if matchSegs(p.segs, path[:n]) {
			return true
		}
	}
	return false
}

func matchSegs(pat []string, path []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(path); k++ {
				if matchSegs(pat[1:], path[k:]) {
					return true
				}
			}
			return false
		}
		if len(path) == 0 || !matchKey(pat[0], path[0]) {
			return false
		}
		pat, path = pat[1:], path[1:]
	}
	return len(path) == 0
}

// matchKey matches one key against a pattern key where "*" matches any run of characters.
func matchKey(pat, key string) bool {
	if !strings.Contains(pat, "*") {
		return pat == key
	}
	parts := strings.Split(pat, "*")
	if !strings.HasPrefix(key, parts[0]) {
		return false
	}
	key = key[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(key, mid)
		if i < 0 {
			return false
		}
		key = key[i+len(mid):]
	}
	return len(key) >= len(last) && strings.HasSuffix(key, last)
}

// Under reports whether path is p or lies under it.
func (p Path) Under(prefix Path) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}
