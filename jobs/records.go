package jobs

import (
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/records"
)

// JSONOpts prunes the JSON records of a source and names their free-text fields
// (sources[].json). Paths and patterns are dotted paths inside the body (the record); see
// package records for their syntax.
type JSONOpts struct {
	Drop       []string `yaml:"drop"`        // glob patterns of fields left out of the content
	Keep       []string `yaml:"keep"`        // when set, only the fields these patterns match stay
	DropNulls  *bool    `yaml:"drop_nulls"`  // leave out null values (default true)
	DropEmpty  *bool    `yaml:"drop_empty"`  // leave out "", {} and [] (default true)
	TextFields []string `yaml:"text_fields"` // free-text fields: the only ones the LLM is asked about
}

// FactDecl declares a fact that follows from two fields of a record (sources[].facts[]): one
// fact per subject value and object value, without the LLM.
type FactDecl struct {
	Subject     string `yaml:"subject"` // field path of the subject's name
	SubjectType string `yaml:"subject_type"`
	Relation    string `yaml:"relation"` // SCREAMING_SNAKE_CASE predicate
	Object      string `yaml:"object"`   // field path of the object's name (may pass through arrays)
	ObjectType  string `yaml:"object_type"`
	Kind        string `yaml:"kind"` // state (default: closed when a later snapshot no longer shows it) | event
	Fact        string `yaml:"fact"` // sentence with {subject} and {object} (default "{subject} <relation words> {object}")
}

// RecordSpec compiles the source's JSON record options for the loader: nulls and empty values
// are dropped unless json.drop_nulls / json.drop_empty say false. Validate checks the same
// options and names the key at fault; the error here is a fallback.
func (s Source) RecordSpec() (*loaders.RecordSpec, error) {
	on := func(b *bool) bool { return b == nil || *b }
	p, err := records.NewPruner(s.JSON.Drop, s.JSON.Keep, on(s.JSON.DropNulls), on(s.JSON.DropEmpty))
	if err != nil {
		return nil, fmt.Errorf("json.%w", err)
	}
	spec := &loaders.RecordSpec{Pruner: p}
	for k, f := range s.JSON.TextFields {
		path, err := records.ParsePath(f)
		if err != nil {
			return nil, fmt.Errorf("json.text_fields[%d]: %w", k, err)
		}
		spec.TextFields = append(spec.TextFields, path)
	}
	for k, f := range s.Facts {
		d, err := records.NewDecl(f.Subject, f.SubjectType, f.Relation, f.Object, f.ObjectType, f.Kind, f.Fact)
		if err != nil {
			return nil, fmt.Errorf("facts[%d]: %w", k, err)
		}
		spec.Decls = append(spec.Decls, d)
	}
	return spec, nil
}

// recordOptions reports whether the source sets any JSON record option.
func (s Source) recordOptions() bool {
	j := s.JSON
	return len(j.Drop)+len(j.Keep)+len(j.TextFields)+len(s.Facts) > 0 || j.DropNulls != nil || j.DropEmpty != nil ||
		s.Mapping.Object != ""
}

// validateRecord checks the JSON record options of a source: patterns and paths parse, a text
// field is not pruned away, declarations are complete, their types are ontology entity types,
// and state facts have snapshots to close them (mapping.object). Errors name the key within the
// source (at index i).
func (j *Job) validateRecord(i int, s Source) error {
	at := func(key string) string { return fmt.Sprintf("[%d].%s", i, key) }
	if !s.recordOptions() {
		return nil
	}
	types := map[string]bool{}
	for _, t := range j.Ontology.EntityTypes {
		types[t.Name] = true
	}
	if s.Format != "" && s.Format != loaders.FormatJSONL {
		return options.Bad(at("format"), "json, facts and mapping.object need JSON Lines, not %s", s.Format)
	}
	if (len(s.JSON.TextFields) > 0 || len(s.Facts) > 0) && s.Source != "" && s.Source != "json" {
		return options.Bad(at("source"), "json.text_fields and facts read JSON records: the source must be json, not %s", s.Source)
	}
	spec, err := s.RecordSpec()
	if err != nil {
		key, msg, _ := strings.Cut(err.Error(), ": ")
		return options.Bad(at(key), "%s", msg)
	}
	for k, p := range spec.TextFields {
		if why := spec.Pruner.DroppedBy(p); why != "" {
			return options.Bad(at(fmt.Sprintf("json.text_fields[%d]", k)), "%s is pruned away by %s", p, why)
		}
	}
	keys := map[string]int{}
	for k, f := range s.Facts {
		key := fmt.Sprintf("facts[%d]", k)
		for _, typ := range []struct{ name, v string }{{"subject_type", f.SubjectType}, {"object_type", f.ObjectType}} {
			if typ.v != "" && !types[typ.v] {
				return options.Bad(at(key+"."+typ.name), "%q is not an entity type of ontology.entity_types", typ.v)
			}
		}
		d := spec.Decls[k]
		if prev, dup := keys[d.Key()]; dup {
			return options.Bad(at(key), "declares %q again (facts[%d])", d.Key(), prev)
		}
		keys[d.Key()] = k
		if d.Kind == graph.DeclaredState && s.Mapping.Object == "" {
			return options.Bad(at(key), "a state fact is closed by a later snapshot of the same object: set sources[%d].mapping.object "+
				"(or kind: event)", i)
		}
	}
	return nil
}
