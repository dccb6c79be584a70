package jobs

import (
	"fmt"

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

// RecordOptions reports whether the source sets any JSON record option.
func (s Source) RecordOptions() bool {
	j := s.JSON
	return len(j.Drop)+len(j.Keep)+len(j.TextFields)+len(s.Facts) > 0 || j.DropNulls != nil || j.DropEmpty != nil ||
		s.Mapping.Object != ""
}
