package records

import "fmt"

// Pruner removes what a model need not read from a JSON record (sources[].json).
type Pruner struct {
	Drop      []Pattern // fields removed with everything under them
	Keep      []Pattern // when not empty, only fields matched (or under a match) are kept
	DropNulls bool      // remove null values
	DropEmpty bool      // remove "", {} and [] (also those left empty by the other rules)
}

// NewPruner parses the patterns of a pruner; errors name the list and the index.
func NewPruner(drop, keep []string, dropNulls, dropEmpty bool) (*Pruner, error) {
	p := &Pruner{DropNulls: dropNulls, DropEmpty: dropEmpty}
	for i, s := range drop {
		pat, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("drop[%d]: %w", i, err)
		}
		p.Drop = append(p.Drop, pat)
	}
	for i, s := range keep {
		pat, err := ParsePattern(s)
		if err != nil {
			return nil, fmt.Errorf("keep[%d]: %w", i, err)
		}
		p.Keep = append(p.Keep, pat)
	}
	return p, nil
}

// Active reports whether the pruner can change a record.
func (p *Pruner) Active() bool {
	return p != nil && (len(p.Drop) > 0 || len(p.Keep) > 0 || p.DropNulls || p.DropEmpty)
}

// Prune returns the record with the pruned fields removed; obj is not modified. Keep applies
// first, then drop, then the null and empty rules (bottom-up, so an object left empty by the
// other rules goes too under DropEmpty). The root object stays even when empty.
func (p *Pruner) Prune(obj map[string]any) map[string]any {
	if !p.Active() {
		return obj
	}
	out, _ := p.object(obj, nil, len(p.Keep) == 0)
	if out == nil {
		return map[string]any{}
	}
	return out
}

// DroppedBy returns the drop pattern that removes path (or an ancestor), or the empty string;
// with keep patterns, a path no keep pattern reaches is reported as "not kept".
func (p *Pruner) DroppedBy(path Path) string {
	for _, d := range p.Drop {
		if d.MatchPrefix(path) {
			return fmt.Sprintf("json.drop pattern %q", d)
		}
	}
	if len(p.Keep) == 0 {
		return ""
	}
	for _, k := range p.Keep {
		if k.MatchPrefix(path) {
			return ""
		}
	}
	return "no json.keep pattern"
}

// object prunes an object at path; kept says a keep pattern matched path or an ancestor. It
// returns nil when the object is to be removed.
func (p *Pruner) object(obj map[string]any, path Path, kept bool) (map[string]any, bool) {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		child := append(path[:len(path):len(path)], k)
		if p.dropped(child) {
			continue
		}
		if nv, ok := p.value(v, child, kept || p.kept(child)); ok {
			out[k] = nv
		}
	}
	if len(out) == 0 && (p.DropEmpty || !kept) {
		return nil, false
	}
	return out, true
}

// value prunes one value; ok is false when it is to be removed.
func (p *Pruner) value(v any, path Path, kept bool) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return p.object(x, path, kept)
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if ne, ok := p.value(e, path, kept); ok {
				out = append(out, ne)
			}
		}
		if len(out) == 0 && (p.DropEmpty || !kept) {
			return nil, false
		}
		return out, true
	case nil:
		return nil, kept && !p.DropNulls
	case string:
		return x, kept && !(p.DropEmpty && x == "")
	}
	return v, kept
}

func (p *Pruner) dropped(path Path) bool {
	for _, d := range p.Drop {
		if d.Match(path) {
			return true
		}
	}
	return false
}

func (p *Pruner) kept(path Path) bool {
	for _, k := range p.Keep {
		if k.Match(path) {
			return true
		}
	}
	return false
}
