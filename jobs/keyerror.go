package jobs

import (
	"cmp"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// KeyError is a key of a job document (or of a --set) that names no job key.
type KeyError struct {
	Path       string   // dotted, as --set takes it: "llm.concurrenccy", "sources.0.mapping.groupp"
	Line       int      // 0 for a key a --set added
	Section    string   // the dotted path of the section it is in ("" at the top)
	Keys       []string // the keys the section has
	Suggestion string   // the nearest of Keys, when one is near
}

func (e *KeyError) Error() string {
	var b strings.Builder
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	fmt.Fprintf(&b, "unknown job key %s", e.Path)
	switch {
	case e.Suggestion != "":
		fmt.Fprintf(&b, " (did you mean %s?)", join(e.Section, e.Suggestion))
	case e.Section == "":
		fmt.Fprintf(&b, " (the top-level keys are %s)", strings.Join(e.Keys, ", "))
	default:
		fmt.Fprintf(&b, " (the keys of %s are %s)", e.Section, strings.Join(e.Keys, ", "))
	}
	return b.String()
}

// ValueError is a job value of the wrong shape or type.
type ValueError struct {
	Path  string
	Line  int // 0 for a value a --set gave
	Value string
	Want  string // "a whole number", "a list", …
}

func (e *ValueError) Error() string {
	where := ""
	if e.Line > 0 {
		where = fmt.Sprintf("line %d: ", e.Line)
	}
	if e.Value == "" {
		return fmt.Sprintf("%s%s: want %s", where, e.Path, e.Want)
	}
	return fmt.Sprintf("%s%s: %q is not %s", where, e.Path, e.Value, e.Want)
}

func valueError(n *yaml.Node, path, want string) error {
	v := ""
	if n.Kind == yaml.ScalarNode {
		v = n.Value
	}
	return &ValueError{Path: cmp.Or(path, "the job"), Line: n.Line, Value: v, Want: want}
}
