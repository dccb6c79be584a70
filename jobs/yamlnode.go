package jobs

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var jobType = reflect.TypeFor[Job]()

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandNode replaces ${VAR} and ${VAR:-default} in the scalar values of a parsed document
// (not in keys, and never in comments, which are not values); an unset ${VAR} without default
// is an error naming its line. The expanded text is the value as it stands, whatever it holds
// (" #", a newline, ": "): it cannot change the document's structure. The value is typed from
// the expanded text (retype).
func expandNode(n *yaml.Node, env LookupEnv) error {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if err := expandNode(c, env); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if err := expandNode(n.Content[i], env); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return nil
		}
		var missing []string
		n.Value = varRef.ReplaceAllStringFunc(n.Value, func(m string) string {
			sub := varRef.FindStringSubmatch(m)
			if v, ok := env(sub[1]); ok && (v != "" || sub[2] == "") {
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

// checkKeys reports the first mapping key of a document that names no field of t (yaml tags),
// with its line. Values of the wrong kind are left to the decoder, which reports them.
func checkKeys(n *yaml.Node, t reflect.Type) error {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return checkKeys(n.Content[0], t)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" && k.Tag == "!!merge" {
				if err := checkMerge(v, t); err != nil {
					return err
				}
				continue
			}
			f, ok := fieldByTag(t, k.Value)
			if !ok {
				where := "" // a key a --set added has no line
				if k.Line > 0 {
					where = fmt.Sprintf("line %d: ", k.Line)
				}
				return fmt.Errorf("%sunknown key %q (not a key of %s)", where, k.Value, typeName(t))
			}
			if err := checkKeys(v, f.Type); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				if err := checkKeys(n.Content[i], t.Elem()); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				if err := checkKeys(c, t.Elem()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkMerge checks the mapping (or list of mappings) a merge key "<<" brings in.
func checkMerge(v *yaml.Node, t reflect.Type) error {
	for v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind == yaml.SequenceNode {
		for _, c := range v.Content {
			if err := checkKeys(c, t); err != nil {
				return err
			}
		}
		return nil
	}
	return checkKeys(v, t)
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

// typeName names a struct type for errors: its Go name, or "a section" for anonymous ones.
func typeName(t reflect.Type) string {
	if t.Name() == "" {
		return "its section"
	}
	return t.Name()
}
