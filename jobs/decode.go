package jobs

import (
	"fmt"
	"reflect"
	"strconv"

	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/internal/suggestions"
	"gopkg.in/yaml.v3"
)

// decode decodes a parsed job document into the keys declared on root: a mapping key that names
// no declared key is a *KeyError, a value of the wrong shape or type a *ValueError, each with
// its line and dotted path, so that errors name job keys and never Go types. A null value (an
// empty one in YAML) leaves the key unset. Merge keys ("<<") and aliases read as YAML reads them:
// a mapping's own keys before those it merges, earlier merges before later ones.
func decode(doc *yaml.Node, root *options.Section) error {
	if doc.Kind == 0 { // an empty file
		return nil
	}
	n := doc
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return decodeSection(n, root, "")
}

// decodeSection decodes the mapping node n at path into the section sec.
func decodeSection(n *yaml.Node, sec *options.Section, path string) error {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return valueError(n, path, "a section of keys")
	}
	pairs, err := flatten(n)
	if err != nil {
		return err
	}
	for _, p := range pairs {
		e := sec.Entry(p.key.Value)
		if e == nil {
			keys := sec.Names()
			return &KeyError{Path: join(path, p.key.Value), Line: p.key.Line, Section: path, Keys: keys,
				Suggestion: suggestions.Near(p.key.Value, keys)}
		}
		if err := decodeEntry(p.value, e, join(path, p.key.Value)); err != nil {
			return err
		}
	}
	return nil
}

// decodeEntry decodes the value node v at path into the entry e.
func decodeEntry(v *yaml.Node, e options.Entry, path string) error {
	v = deref(v)
	if isNull(v) {
		return nil // an empty value leaves the default
	}
	switch e := e.(type) {
	case *options.Key:
		if err := checkValue(v, e.Type(), path); err != nil {
			return err
		}
		if err := v.Decode(e.Target()); err != nil {
			return fmt.Errorf("parsing: %w", err)
		}
	case *options.Section:
		return decodeSection(v, e, path)
	case *options.List:
		if v.Kind != yaml.SequenceNode {
			return valueError(v, path, "a list")
		}
		for i, el := range e.Make(len(v.Content)) {
			if err := decodeSection(v.Content[i], el, join(path, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case *options.Map:
		if v.Kind != yaml.MappingNode {
			return valueError(v, path, "a mapping")
		}
		pairs, err := flatten(v)
		if err != nil {
			return err
		}
		keys := make([]string, len(pairs))
		for i, p := range pairs {
			keys[i] = p.key.Value
		}
		for i, el := range e.Make(keys) {
			if err := decodeSection(pairs[i].value, el, join(path, keys[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkValue checks the node at path against the type t a key decodes into: its shape (a
// single value, a list, a mapping) and, for numbers and booleans, its type.
func checkValue(n *yaml.Node, t reflect.Type, path string) error {
	n = deref(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if isNull(n) {
		return nil
	}
	switch t.Kind() {
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return valueError(n, path, "a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkValue(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return valueError(n, path, "a list")
		}
		for i, c := range n.Content {
			if err := checkValue(c, t.Elem(), join(path, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	default:
		if n.Kind != yaml.ScalarNode {
			return valueError(n, path, "a single value")
		}
		want := scalarWant(t)
		if want != "" && n.Decode(reflect.New(t).Interface()) != nil {
			return valueError(n, path, want)
		}
	}
	return nil
}

// scalarWant names what a scalar of kind t must be ("" when any scalar will do).
func scalarWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	return ""
}

// pair is a key of a mapping with its value.
type pair struct{ key, value *yaml.Node }

// flatten returns the keys of a mapping node with their values as YAML reads them: its own keys
// in order, then the keys its merge keys ("<<": a mapping or a list of mappings) bring in that
// are not there yet, earlier merges first. A key given twice in one mapping is an error.
func flatten(n *yaml.Node) ([]pair, error) {
	var own []pair
	var merges []*yaml.Node
	line := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if prev, dup := line[k.Value]; dup {
			return nil, fmt.Errorf("parsing: yaml: unmarshal errors:\n  line %d: mapping key %q already defined at line %d", k.Line, k.Value, prev)
		}
		line[k.Value] = k.Line
		if k.Value == "<<" && k.Tag == "!!merge" {
			v = deref(v)
			if v.Kind == yaml.SequenceNode {
				merges = append(merges, v.Content...)
			} else {
				merges = append(merges, v)
			}
			continue
		}
		own = append(own, pair{k, v})
	}
	seen := map[string]bool{}
	for _, p := range own {
		seen[p.key.Value] = true
	}
	for _, m := range merges {
		m = deref(m)
		if m.Kind != yaml.MappingNode {
			return nil, valueError(m, "<<", "a mapping or a list of mappings (what a merge key brings in)")
		}
		more, err := flatten(m)
		if err != nil {
			return nil, err
		}
		for _, p := range more {
			if !seen[p.key.Value] {
				seen[p.key.Value] = true
				own = append(own, p)
			}
		}
	}
	return own, nil
}

// deref follows aliases to the node they name.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
