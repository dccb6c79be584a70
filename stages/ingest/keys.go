package ingest

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/records"
)

// Values of sources[].sync.
const (
	SyncAppend = "append" // rows gone from the source stay in the graph (the default)
	SyncMirror = "mirror" // an episode whose row is gone from the source is forgotten
)

// Defaults of the limits the stage reads (Limits).
const (
	DefaultMaxErrorRatio = 0.1
	// DefaultMaxVanishedRatio: a run may forget at most a tenth of a mirror source's episodes at
	// once.
	DefaultMaxVanishedRatio = 0.1
)

// Source is a sources[] entry of a job, as the stage reads it: what the loader reads
// (loaders.Spec), how its JSON records are pruned and what facts they declare (package records)
// and what becomes of the rows that leave it (Sync).
type Source struct {
	loaders.Spec
	JSON  records.JSON
	Facts []records.FactDecl
	// Sync is append (rows gone from the source stay in the graph) or mirror (an episode whose
	// row is gone is forgotten on the next run, within limits.max_vanished_ratio).
	Sync string
}

// DeclareSources declares sources[] on *p: each source's keys, and the check that there is one
// and that each source's JSON record options and loader settings hold (entityType says whether
// a name is an entity type of the ontology, for the declared facts' types).
func DeclareSources(root *options.Section, p *[]Source, entityType func(string) bool) {
	l := options.ListOf(root, p, "sources", "inputs, read in order", func(sec *options.Section, s *Source) { s.Declare(sec) })
	l.Check(func() error {
		if len(*p) == 0 {
			return errors.New("at least one source is required")
		}
		for i := range *p {
			s := &(*p)[i]
			if err := s.checkRecords(i, entityType); err != nil {
				return err
			}
			if err := s.Spec.Validate(); err != nil {
				return options.Bad(fmt.Sprintf("[%d]", i), "%v", err)
			}
		}
		return nil
	})
}

// Declare declares the keys of a source: the loader's, the JSON records', and sync.
func (s *Source) Declare(sec *options.Section) {
	s.Spec.Declare(sec)
	sec.Section("json", "JSON Lines records (object bodies): how they are pruned and which fields are free text", s.JSON.Declare)
	options.ListOf(sec, &s.Facts, "facts", "facts that follow from fields alone, no LLM: paths inside the record "+
		"(`object: \"issue.assignees[*].login\"` gives one fact per value), types from `ontology.entity_types`. "+
		"Declared facts are never judged by the LLM; their entities resolve with the LLM's as usual",
		func(sec *options.Section, f *records.FactDecl) { f.Declare(sec) })
	sec.String(&s.Sync, "sync", "`append`: rows that leave the source stay in the graph; `mirror`: an episode whose row left "+
		"the source is forgotten by the next run, as `forget` would, unless more than `limits.max_vanished_ratio` of the "+
		"source's episodes left at once (see [Forgetting](docs/forgetting.md#sources-that-shrink))", options.Default(SyncAppend),
		options.Words(SyncAppend, SyncMirror))
}

// RecordSpec compiles the source's JSON record options for the loader: nulls and empty values
// are dropped unless json.drop_nulls / json.drop_empty say false. Validate checks the same
// options and names the key at fault; the error here is a fallback.
func (s *Source) RecordSpec() (*loaders.RecordSpec, error) {
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
func (s *Source) RecordOptions() bool {
	j := s.JSON
	return len(j.Drop)+len(j.Keep)+len(j.TextFields)+len(s.Facts) > 0 || j.DropNulls != nil || j.DropEmpty != nil ||
		s.Mapping.Object != ""
}

// checkRecords checks the JSON record options of the source: patterns and paths parse, a text
// field is not pruned away, declarations are complete, their types are entity types (entityType),
// and state facts have snapshots to close them (mapping.object). Errors name the key within the
// source (at index i).
func (s *Source) checkRecords(i int, entityType func(string) bool) error {
	at := func(key string) string { return fmt.Sprintf("[%d].%s", i, key) }
	if !s.RecordOptions() {
		return nil
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
			if typ.v != "" && !entityType(typ.v) {
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

// Limits are the job's limits the stage reads (limits.max_error_ratio, .max_vanished_ratio).
type Limits struct {
	MaxErrorRatio    *float64
	MaxVanishedRatio *float64
}

// Declare declares the limits on l's fields.
func (l *Limits) Declare(s *options.Section) {
	s.OptFloat(&l.MaxErrorRatio, "max_error_ratio", "quarantined/read rows above which ingest fails (`0`: any quarantined "+
		"row fails the run)", options.Default(DefaultMaxErrorRatio), options.Max(1))
	s.OptFloat(&l.MaxVanishedRatio, "max_vanished_ratio", "share of a `sync: mirror` source's episodes that may leave it "+
		"at once: above it the run stops with exit 1 naming the source and the counts, and forgets nothing (a mistyped path "+
		"or an emptied bucket must not erase a graph). Rows removed on purpose in bulk: run once with `--set "+
		"limits.max_vanished_ratio=1`", options.Default(DefaultMaxVanishedRatio), options.Max(1))
}
