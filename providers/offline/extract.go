package offline

import (
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// extractor holds the state of one extract_graph answer.
type extractor struct {
	in      wire.ExtractInput
	ref     time.Time
	hasRef  bool
	onto    ontology
	speaker string // the speaker's entity name, or ""
	// fallback is the subject of statements that name none: the speaker, or else the latest
	// speaker of the previous episodes.
	fallback string
	persons  map[string]string // normalised → spelling of the known people (speakers)
	ents     *registry
	facts    []wire.ExtractedFact
	seen     map[string]bool
}

// extraction is what the rules find in one episode: its entities (names and types) and facts.
type extraction struct {
	Entities []wire.ExtractedEntity `json:"entities"`
	Facts    []wire.ExtractedFact   `json:"facts"`
}

// extract finds the speaker, the names and the facts of one episode; every extraction task is
// answered from it.
func extract(in wire.ExtractInput) extraction {
	ex := &extractor{in: in, onto: newOntology(in.EntityTypes), ents: newRegistry(),
		seen: map[string]bool{}, persons: map[string]string{}}
	if t, err := time.Parse(time.RFC3339, in.Episode.ReferenceTime); err == nil {
		ex.ref, ex.hasRef = t.UTC(), true
	}
	person := ex.onto.pick(typesPerson...)
	for _, p := range in.Previous {
		if name := cleanName(p.Speaker); name != "" {
			ex.persons[normName(name)] = name
			ex.fallback = name
		}
	}
	if name := cleanName(in.Episode.Speaker); name != "" {
		ex.speaker = ex.ents.add(name, person)
		ex.persons[normName(name)] = ex.speaker
		ex.fallback = ex.speaker
	}
	content := in.Episode.Content
	if !(in.Episode.Source == "json" || strings.HasPrefix(strings.TrimSpace(content), "{")) || !ex.record(content) {
		for _, s := range splitSentences(content) {
			if hasHangul(s.text) {
				ex.korean(s)
			} else {
				ex.english(s)
			}
		}
	}
	out := dropExcluded(extraction{Entities: ex.ents.list, Facts: ex.facts}, in.ExcludedTypes)
	if out.Entities == nil {
		out.Entities = []wire.ExtractedEntity{}
	}
	if out.Facts == nil {
		out.Facts = []wire.ExtractedFact{}
	}
	return out
}

// personType is the entity type of people.
func (ex *extractor) personType() string { return ex.onto.pick(typesPerson...) }

// objectType is the entity type of a predicate's object.
func (ex *extractor) objectType(pred string) string { return ex.onto.pick(objectTypes(pred)...) }
