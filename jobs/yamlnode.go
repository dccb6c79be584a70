package jobs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/internal/options"
	"gopkg.in/yaml.v3"
)

var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandNode replaces ${VAR} and ${VAR:-default} in the scalar values of a parsed document
// (not in keys, and never in comments, which are not values); an unset ${VAR} without default
// is an error naming its line. The expanded text is the value as it stands, whatever it holds
// (" #", a newline, ": "): it cannot change the document's structure. The value is typed from
// the expanded text (retype). A value that a ${VAR} set but empty (without a default) leaves
// empty is an error naming its key (path) unless the key documents what empty means
// (checkEmpty).
func expandNode(n *yaml.Node, env LookupEnv, path string, keys *options.Section) error {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := expandNode(c, env, path, keys); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := expandNode(c, env, join(path, strconv.Itoa(i)), keys); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if err := expandNode(n.Content[i], env, join(path, n.Content[i-1].Value), keys); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		if !strings.Contains(n.Value, "${") {
			return nil
		}
		var missing, empty []string
		n.Value, missing, empty = expandValue(n.Value, env)
		if len(missing) > 0 {
			return fmt.Errorf("expanding: line %d: environment variable %s is not set (use ${%s:-default} for a default)",
				n.Line, strings.Join(missing, ", "), missing[0])
		}
		if len(empty) > 0 && strings.TrimSpace(n.Value) == "" {
			if err := checkEmpty(keys, path, fmt.Sprintf("environment variable %s is set but empty; set it, or write ${%s:-DEFAULT}",
				strings.Join(empty, ", "), empty[0])); err != nil {
				return fmt.Errorf("expanding: line %d: %w", n.Line, err)
			}
		}
		retype(n)
	}
	return nil
}

// expandValue replaces ${VAR} and ${VAR:-default} in a value with env, and returns the variables
// that are unset without a default (replaced by "") and those set but empty.
func expandValue(value string, env LookupEnv) (out string, missing, empty []string) {
	out = varRef.ReplaceAllStringFunc(value, func(m string) string {
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
	return out, missing, empty
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
