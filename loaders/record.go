package loaders

import (
	"encoding/json"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/records"
)

// RecordSpec says how the JSON records of a JSON Lines source (rows whose body is a JSON object)
// are read (sources[].json, sources[].facts).
type RecordSpec struct {
	Pruner     *records.Pruner // what the episode's content leaves out; nil: nothing
	TextFields []records.Path  // free-text fields, the only ones the LLM is asked about
	Decls      []records.Decl  // declared facts, read from the full record
}

// reads reports whether a record of the spec gets a graph.Record.
func (s *RecordSpec) reads(m *Mapping) bool {
	return m.Object != "" || s != nil && (len(s.TextFields) > 0 || len(s.Decls) > 0)
}

// jsonlOnly reports whether the spec asks for what only JSON Lines sources do: a Record, or
// drop and keep patterns. (The null and empty rules alone are not applied to other formats.)
func (s *RecordSpec) jsonlOnly(m *Mapping) bool {
	return s.reads(m) || s != nil && s.Pruner != nil && (len(s.Pruner.Drop) > 0 || len(s.Pruner.Keep) > 0)
}

// withRecord finishes the episode of a JSON Lines row: it reads the object id (mapping.object)
// from the row, the declared facts from the full record, and prunes the content. The content
// key of an episode without record key stays that of the full body, so pruning options never
// change ids. A body that is not a JSON object is left as it is, unless the source declares
// facts or text fields, which need one: then the row is bad.
func (b builder) withRecord(pos rowPos, names *Mapping, row map[string]json.RawMessage, res Result) Result {
	spec := b.spec.Record
	reads := spec.reads(names)
	if !reads && (spec == nil || !spec.Pruner.Active()) {
		return res
	}
	bad := func(field, reason string) Result {
		return Result{Bad: &Bad{File: pos.file, Row: pos.row, Field: field, Reason: reason}}
	}
	ep := &res.Episode
	var rec *graph.Record
	if reads {
		object, err := asText(decodeValue(lookup(row, names.Object)))
		if err != nil {
			return bad(names.Object, err.Error())
		}
		rec = &graph.Record{Object: strings.TrimSpace(object)}
	}
	obj, isObject := map[string]any(nil), false
	if ep.Source == graph.SourceJSON && strings.HasPrefix(ep.Content, "{") {
		obj, isObject = records.Decode(ep.Content)
	}
	if !isObject {
		if spec != nil && (len(spec.TextFields) > 0 || len(spec.Decls) > 0) {
			return bad(names.Body, "not a JSON record (json.text_fields and facts need a JSON object body of source json)")
		}
		ep.Record = rec
		return res
	}
	if spec != nil {
		for _, p := range spec.TextFields {
			rec.TextFields = append(rec.TextFields, p.String())
		}
		for _, d := range spec.Decls {
			rec.Declared = append(rec.Declared, d.Eval(obj))
			for _, p := range []records.Path{d.Subject, d.Object} {
				if s := p.String(); !contains(rec.FactPaths, s) {
					rec.FactPaths = append(rec.FactPaths, s)
				}
			}
		}
		if spec.Pruner.Active() {
			if pruned := records.Encode(spec.Pruner.Prune(obj)); pruned != ep.Content {
				res.FullBody, ep.Content = ep.Content, pruned
			}
		}
	}
	ep.Record = rec
	return res
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
