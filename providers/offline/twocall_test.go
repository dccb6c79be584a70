package offline

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

// TestTwoCallsMatchCombined checks that extract_entities then extract_facts give what
// extract_graph gives, on the bundled examples.
func TestTwoCallsMatchCombined(t *testing.T) {
	for _, file := range []string{"conversations.jsonl", "records.jsonl"} {
		for _, s := range sampleInputs(t, file) {
			combined := extract(s.ExtractInput)
			ents := extractEntities(s.ExtractInput)
			var names []wire.ExtractedEntity
			for _, e := range ents.Entities {
				names = append(names, wire.ExtractedEntity{Name: e.Name, Type: e.Type})
			}
			if names == nil {
				names = []wire.ExtractedEntity{}
			}
			if !reflect.DeepEqual(names, combined.Entities) {
				t.Fatalf("%s: entities %+v, combined %+v", s.Episode.Content, names, combined.Entities)
			}
			facts := extractFacts(wire.FactsInput{Episode: s.Episode, Previous: s.Previous, Entities: names})
			for _, f := range facts.Facts {
				if !reflect.DeepEqual(f, findFact(combined.Facts, f)) {
					t.Errorf("%s: fact %+v not in the combined answer", s.Episode.Content, f)
				}
			}
		}
	}
}

func findFact(fs []wire.ExtractedFact, f wire.ExtractedFact) wire.ExtractedFact {
	for _, x := range fs {
		if x.Fact == f.Fact {
			return x
		}
	}
	return wire.ExtractedFact{}
}

func TestExtractFactsKeepsListedEndpoints(t *testing.T) {
	in := message("Alice", "I work at Kakao and I live in Pangyo.")
	got := extractFacts(wire.FactsInput{Episode: in.Episode, Entities: []wire.ExtractedEntity{{Name: "alice"}, {Name: "Kakao"}}})
	if len(got.Facts) != 1 || got.Facts[0].Source != "alice" || got.Facts[0].Target != "Kakao" {
		t.Fatalf("facts %+v: want only the fact between listed entities, in the list's spelling", got.Facts)
	}
}

func TestRecordAttributesAndExclusion(t *testing.T) {
	in := wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: testRef, Source: "json",
		Content: `{"customer":"Acme Corp","plan":"Pro","Industry":"Retail","seats":12}`},
		EntityTypes:   []wire.EntityTypeIn{{Name: "Organization", Attributes: []string{"industry", "seats", "founded"}}, {Name: "Plan"}},
		ExcludedTypes: []string{"plan"}}
	got := extractEntities(in)
	want := []wire.EntityMention{{Name: "Acme Corp", Type: "Organization",
		Attributes: []wire.AttributeValue{{Name: "industry", Value: "Retail"}, {Name: "seats", Value: "12"}}}}
	if !reflect.DeepEqual(got.Entities, want) {
		t.Fatalf("entities %+v, want %+v", got.Entities, want)
	}
	if g := extract(in); len(g.Facts) != 0 {
		t.Errorf("facts about an excluded type kept: %+v", g.Facts)
	}
}

// TestExtractWindowCites: a window gives the facts its episodes give one by one, each under its
// episode's number, with the omitted reference time carried from the episode before (dates
// resolve against it) and the window's earlier speakers as the previous episodes.
func TestExtractWindowCites(t *testing.T) {
	eps := []wire.WindowEpisodeIn{
		{N: 1, ReferenceTime: "2024-03-01T09:00:00Z", Source: "message", Speaker: "Raj", Content: "I work at Acme."},
		{N: 2, Speaker: "Sofia", Content: "Where did you live before?"},
		{N: 3, ReferenceTime: "2024-03-05T10:00:00Z", Speaker: "Sofia", Content: "I moved to Porto yesterday."},
	}
	got := extractWindow(wire.WindowInput{Episodes: eps})
	prev := []wire.EpisodeIn{}
	var want []wire.EpisodeFacts
	ref := ""
	for _, ep := range eps {
		if ep.ReferenceTime != "" {
			ref = ep.ReferenceTime
		}
		one := wire.EpisodeIn{ReferenceTime: ref, Source: "message", Speaker: ep.Speaker, Content: ep.Content}
		want = append(want, wire.EpisodeFacts{N: ep.N, Facts: extractGraph(wire.ExtractInput{Episode: one, Previous: prev}).Facts})
		prev = append(prev, one)
	}
	if !reflect.DeepEqual(got.Episodes, want) {
		t.Fatalf("facts %+v, want %+v", got.Episodes, want)
	}
	cited := got.Cited()
	if len(cited) != 2 {
		t.Fatalf("cited facts %+v, want the Acme and the Porto fact", cited)
	}
	if f := cited[1]; f.Cites[0] != 3 || f.ValidAt == nil || *f.ValidAt != "2024-03-04T00:00:00Z" {
		t.Fatalf("Porto fact %+v: want cited to 3, valid from the day before its reference time", f)
	}
	var names []string
	for _, e := range got.Entities {
		names = append(names, e.Name)
	}
	if !reflect.DeepEqual(names, []string{"Raj", "Acme", "Sofia", "Porto"}) {
		t.Fatalf("entities %v", names)
	}
}
