package offline

import (
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// extractGraph answers extract_graph: the entities extract_entities lists (with their
// attributes) and the facts extract finds.
func extractGraph(in wire.ExtractInput) wire.ExtractOutput {
	return wire.ExtractOutput{Entities: extractEntities(in).Entities, Facts: extract(in).Facts}
}

// extractEntities answers extract_entities: the entities extract finds, each with the
// attributes of its type that a JSON record states in a field of the same name (only the record's
// subject has attributes; conversations and texts give none).
func extractEntities(in wire.ExtractInput) wire.EntitiesOutput {
	ex := extract(in)
	attrs := recordAttributes(in)
	out := wire.EntitiesOutput{Entities: make([]wire.EntityMention, 0, len(ex.Entities))}
	for _, e := range ex.Entities {
		m := wire.EntityMention{Name: e.Name, Type: e.Type, Attributes: []wire.AttributeValue{}}
		if a, ok := attrs[normName(e.Name)]; ok {
			m.Attributes = a
		}
		out.Entities = append(out.Entities, m)
	}
	return out
}

// extractFacts answers extract_facts: the facts extract_graph would give for the episode whose
// two endpoints are both in the given entity list, written with the list's spelling.
func extractFacts(in wire.FactsInput) wire.FactsOutput {
	listed := map[string]string{}
	for _, e := range in.Entities {
		listed[normName(e.Name)] = e.Name
	}
	ex := extract(wire.ExtractInput{Episode: in.Episode, Previous: in.Previous, EntityTypes: in.EntityTypes,
		EdgeTypes: in.EdgeTypes, ExcludedTypes: in.ExcludedTypes})
	out := wire.FactsOutput{Facts: []wire.ExtractedFact{}}
	for _, f := range ex.Facts {
		src, okS := listed[normName(f.Source)]
		tgt, okT := listed[normName(f.Target)]
		if okS && okT {
			f.Source, f.Target = src, tgt
			out.Facts = append(out.Facts, f)
		}
	}
	return out
}

// recordAttributes reads the attributes of a JSON record's subject: for each attribute of the
// subject's type, the record field of the same name (case-insensitive, spaces as underscores).
// The result is keyed by the normalised subject name.
func recordAttributes(in wire.ExtractInput) map[string][]wire.AttributeValue {
	content := in.Episode.Content
	if in.Episode.Source != "json" && !strings.HasPrefix(strings.TrimSpace(content), "{") {
		return nil
	}
	r, ok := parseRecord(content)
	if !ok {
		return nil
	}
	ex := &extractor{onto: newOntology(in.EntityTypes)}
	subj, typ := ex.recordSubject(r)
	if subj == "" {
		return nil
	}
	var vals []wire.AttributeValue
	for _, t := range in.EntityTypes {
		if !strings.EqualFold(t.Name, typ) {
			continue
		}
		for _, a := range t.Attributes {
			key := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(a)))
			if v, ok := r.vals[key]; ok && key != "" {
				vals = append(vals, wire.AttributeValue{Name: a, Value: v})
			}
		}
	}
	if len(vals) == 0 {
		return nil
	}
	return map[string][]wire.AttributeValue{normName(cleanName(subj)): vals}
}

// dropExcluded removes the entities whose type is excluded (case-insensitive) and every fact
// that names one of them.
func dropExcluded(out extraction, excluded []string) extraction {
	if len(excluded) == 0 {
		return out
	}
	gone := map[string]bool{}
	kept := out.Entities[:0:0]
	for _, e := range out.Entities {
		if excludedType(e.Type, excluded) {
			gone[normName(e.Name)] = true
			continue
		}
		kept = append(kept, e)
	}
	facts := out.Facts[:0:0]
	for _, f := range out.Facts {
		if !gone[normName(f.Source)] && !gone[normName(f.Target)] {
			facts = append(facts, f)
		}
	}
	if kept == nil {
		kept = []wire.ExtractedEntity{}
	}
	if facts == nil {
		facts = []wire.ExtractedFact{}
	}
	return extraction{Entities: kept, Facts: facts}
}

// excludedType reports whether typ is one of the excluded types.
func excludedType(typ string, excluded []string) bool {
	for _, x := range excluded {
		if strings.EqualFold(strings.TrimSpace(x), typ) {
			return true
		}
	}
	return false
}
