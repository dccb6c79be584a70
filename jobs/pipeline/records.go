package pipeline

import (
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/loaders"
)

// validateRecord checks the JSON record options of a source: patterns and paths parse, a text
// field is not pruned away, declarations are complete, their types are ontology entity types,
// and state facts have snapshots to close them (mapping.object). Errors name the key within the
// source (at index i).
func (j *Job) validateRecord(i int, s jobs.Source) error {
	at := func(key string) string { return fmt.Sprintf("[%d].%s", i, key) }
	if !s.RecordOptions() {
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
