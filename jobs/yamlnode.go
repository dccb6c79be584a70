package jobs

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/internal/suggestions"
	"gopkg.in/yaml.v3"
)

var jobType = reflect.TypeFor[Job]()

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandNode replaces ${VAR} and ${VAR:-default} in the scalar values of a parsed document
// (not in keys, and never in comments, which are not values); an unset ${VAR} without default
// is an error naming its line. The expanded text is the value as it stands, whatever it holds
// (" #", a newline, ": "): it cannot change the document's structure. The value is typed from
// the expanded text (retype). A value that a ${VAR} set but empty (without a default) leaves
// empty is an error naming its key (path) unless the key documents what empty means
// (checkEmpty).
func expandNode(n *yaml.Node, env LookupEnv, path string) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := expandNode(c, env, path); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := expandNode(c, env, join(path, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if err := expandNode(n.Content[i], env, join(path, n.Content[i-1].Value)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return nil
		}
		var missing, empty []string
		n.Value = varRef.ReplaceAllStringFunc(n.Value, func(m string) string {
			sub := varRef.FindStringSubmatch(m)
			if v, ok := env(sub[1]); ok && (v != "" || sub[2] == "") {
				if v == "" {
					empty = append(empty, sub[1])
				}
				return v
			}
			if sub[2] != "" {
				return sub[3]
			}
			missing = append(missing, sub[1])
			return ""
		})
		if len(missing) > 0 {
			return fmt.Errorf("expanding: line %d: environment variable %s is not set (use ${%s:-default} for a default)",
				n.Line, strings.Join(missing, ", "), missing[0])
		}
		if len(empty) > 0 && strings.TrimSpace(n.Value) == "" {
			if err := checkEmpty(path, fmt.Sprintf("environment variable %s is set but empty; set it, or write ${%s:-DEFAULT}",
				strings.Join(empty, ", "), empty[0])); err != nil {
				return fmt.Errorf("expanding: line %d: %w", n.Line, err)
			}
		}
		retype(n)
	}
	return nil
}

// retype makes a scalar that held a ${VAR} take its type from the expanded text, quoted or not,
// so `concurrency: ${N}` and `{concurrency: "${N}"}` both read a number (a ${VAR} inside a flow
// collection must be quoted). A quoted value that reads as null stays the (empty) string it
// is; an explicit tag (!!str) and block scalars (| and >) keep their type.
func retype(n *yaml.Node) {
	if n.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return
	}
	quoted := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0
	n.Tag, n.Style = "", 0
	if quoted && n.ShortTag() == "!!null" {
		n.Tag = "!!str"
	}
}

// checkKeys reports the first mapping key of a document that names no field of t (yaml tags) as a
// *KeyError, and the first value of the wrong shape or type as a *ValueError, with its line and
// dotted path, so that errors name job keys and never Go types.
func checkKeys(n *yaml.Node, t reflect.Type) error {
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return checkNode(n, t, "")
}

// checkNode checks the node at path against t.
func checkNode(n *yaml.Node, t reflect.Type, path string) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // an empty value leaves the default
	}
	switch t.Kind() {
	case reflect.Struct:
		return checkStruct(n, t, path)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return valueError(n, path, "a mapping")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkNode(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return valueError(n, path, "a list")
		}
		for i, c := range n.Content {
			if err := checkNode(c, t.Elem(), join(path, strconv.Itoa(i))); err != nil {
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

// checkStruct checks a mapping node at path against the struct type t: every key names a field
// (yaml tags), merge keys included.
func checkStruct(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return valueError(n, path, "a section of keys")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" && k.Tag == "!!merge" {
			if err := checkMerge(v, t, path); err != nil {
				return err
			}
			continue
		}
		f, ok := fieldByTag(t, k.Value)
		if !ok {
			keys := yamlKeys(t)
			return &KeyError{Path: join(path, k.Value), Line: k.Line, Section: path, Keys: keys,
				Suggestion: suggestions.Near(k.Value, keys)}
		}
		if err := checkNode(v, f.Type, join(path, k.Value)); err != nil {
			return err
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

// checkMerge checks the mapping (or list of mappings) a merge key "<<" brings in.
func checkMerge(v *yaml.Node, t reflect.Type, path string) error {
	for v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		for _, c := range v.Content {
			if err := checkNode(c, t, path); err != nil {
				return err
			}
		}
		return nil
	}
	return checkNode(v, t, path)
}

// yamlKeys lists the yaml keys of a struct type in field order.
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// fieldByTag finds the struct field whose yaml tag names key.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
