package records

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tkgraph/backfill/graph"
)

// Decl is a compiled declared fact (sources[].facts[k]): a fact that follows from two fields of
// a record alone.
type Decl struct {
	Subject, Object         Path
	SubjectType, ObjectType string
	Relation                string
	Kind                    string // graph.DeclaredState or graph.DeclaredEvent
	Template                string // the fact sentence, with {subject} and {object}
	key                     string
}

var reRelation = regexp.MustCompile(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$`)

// NewDecl checks and compiles a declaration. kind "" is a state; fact "" is
// "{subject} <relation in lower-case words> {object}".
func NewDecl(subject, subjectType, relation, object, objectType, kind, fact string) (Decl, error) {
	var d Decl
	var err error
	if d.Subject, err = ParsePath(subject); err != nil {
		return d, fmt.Errorf("subject: %w", err)
	}
	if d.Object, err = ParsePath(object); err != nil {
		return d, fmt.Errorf("object: %w", err)
	}
	if !reRelation.MatchString(relation) {
		return d, fmt.Errorf("relation: %q is not SCREAMING_SNAKE_CASE", relation)
	}
	switch kind {
	case "":
		kind = graph.DeclaredState
	case graph.DeclaredState, graph.DeclaredEvent:
	default:
		return d, fmt.Errorf("kind: %q is not %s or %s", kind, graph.DeclaredState, graph.DeclaredEvent)
	}
	if fact == "" {
		fact = "{subject} " + strings.ToLower(strings.ReplaceAll(relation, "_", " ")) + " {object}"
	}
	if err := checkTemplate(fact); err != nil {
		return d, fmt.Errorf("fact: %w", err)
	}
	d.SubjectType, d.ObjectType, d.Relation, d.Kind, d.Template = subjectType, objectType, relation, kind, fact
	d.key = subject + " " + relation + " " + object
	return d, nil
}

// checkTemplate accepts text with {subject} and {object} placeholders and no other braces.
func checkTemplate(t string) error {
	rest := strings.NewReplacer("{subject}", "", "{object}", "").Replace(t)
	if strings.ContainsAny(rest, "{}") {
		return fmt.Errorf("%q: only {subject} and {object} may be in braces", t)
	}
	if !strings.Contains(t, "{subject}") || !strings.Contains(t, "{object}") {
		return fmt.Errorf("%q must name both {subject} and {object}", t)
	}
	return nil
}

// Key names the declaration by its paths and relation.
func (d Decl) Key() string { return d.key }

// Eval reads the declaration's facts from a full record: one pair per subject value and object
// value. A field the record lacks gives no pairs and a Missing reason.
func (d Decl) Eval(obj map[string]any) graph.Declaration {
	out := graph.Declaration{Key: d.key, Relation: d.Relation, SubjectType: d.SubjectType, ObjectType: d.ObjectType, Kind: d.Kind}
	subs, err := Values(obj, d.Subject)
	if err != nil {
		out.Missing = d.Subject.String() + ": " + err.Error()
		return out
	}
	objs, err := Values(obj, d.Object)
	if err != nil {
		out.Missing = d.Object.String() + ": " + err.Error()
		return out
	}
	for _, s := range subs {
		for _, o := range objs {
			fact := strings.NewReplacer("{subject}", s, "{object}", o).Replace(d.Template)
			out.Pairs = append(out.Pairs, graph.DeclaredPair{Subject: s, Object: o, Fact: fact})
		}
	}
	return out
}
