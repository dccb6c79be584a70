package extract

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func ents(names ...string) []wire.EntityMention {
	out := []wire.EntityMention{}
	for _, n := range names {
		out = append(out, wire.EntityMention{Name: n, Type: "Entity", Attributes: []wire.AttributeValue{}})
	}
	return out
}

func fact(s, o string) wire.ExtractedFact {
	return wire.ExtractedFact{Source: s, Target: o, Predicate: "KNOWS", Fact: s + " knows " + o + ".", Kind: wire.KindState}
}

// named is fact(s, o) with predicate p.
func named(s, p, o string) wire.ExtractedFact {
	f := fact(s, o)
	f.Predicate = p
	return f
}

func TestRepair(t *testing.T) {
	in := wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: "2024-05-07T10:00:00Z", Source: "json", Speaker: "42",
		Content: `{"status":"active","customer":"Kim"}`}, ExcludedTypes: []string{"plan", "Organization"}}
	tests := []struct {
		name        string
		out         Output
		want        Output
		wantRepairs Repairs
	}{
		{"clean answer untouched",
			Output{Entities: ents("Alice", "Bob"), Facts: []wire.ExtractedFact{fact("Alice", "Bob")}},
			Output{Entities: ents("Alice", "Bob"), Facts: []wire.ExtractedFact{fact("Alice", "Bob")}}, Repairs{}},
		{"duplicates merged, a specific type and new attributes kept",
			Output{Entities: []wire.EntityMention{{Name: " Alice ", Type: "Entity"}, {Name: "alice", Type: "Person",
				Attributes: []wire.AttributeValue{{Name: "age", Value: "30"}}}, {Name: ""}}},
			Output{Entities: []wire.EntityMention{{Name: "Alice", Type: "Person", Attributes: []wire.AttributeValue{{Name: "age", Value: "30"}}}},
				Facts: []wire.ExtractedFact{}},
			Repairs{RepairDuplicate: 1, RepairEmptyName: 1}},
		{"numbers, dates and input words dropped, ids and the speaker kept",
			Output{Entities: ents("5", "$30", "1,200", "3.5%", "3만원", "2024-05-07", "May 7", "yesterday", "end of next month", "어제", "2024",
				"10:30", "json", "Message", "status", "reference_time", "2024-05-07T10:00:00Z", "Kim", "100234", "42", "3M")},
			Output{Entities: ents("Kim", "100234", "42", "3M"), Facts: []wire.ExtractedFact{}},
			Repairs{RepairNumber: 5, RepairDate: 7, RepairInputWord: 5}},
		{"excluded types dropped with their facts",
			Output{Entities: []wire.EntityMention{{Name: "Alice"}, {Name: "Gold", Type: "Plan"}, {Name: "Bob", Type: ""}},
				Facts: []wire.ExtractedFact{fact("Alice", "Gold"), fact("Alice", "Bob")}},
			Output{Entities: []wire.EntityMention{{Name: "Alice", Attributes: []wire.AttributeValue{}}, {Name: "Bob", Attributes: []wire.AttributeValue{}}},
				Facts: []wire.ExtractedFact{fact("Alice", "Bob")}},
			Repairs{RepairExcluded: 1, RepairUnknownEnd: 1}},
		{"facts: unknown endpoints and self loops dropped, case respelled",
			Output{Entities: ents("Alice", "Bob", "json"),
				Facts: []wire.ExtractedFact{fact("alice", "BOB"), fact("Alice", "Carol"), fact("Alice", "json"), fact("Bob", "bob")}},
			Output{Entities: ents("Alice", "Bob"), Facts: []wire.ExtractedFact{{Source: "Alice", Target: "Bob", Predicate: "KNOWS",
				Fact: "alice knows BOB.", Kind: wire.KindState}}},
			Repairs{RepairInputWord: 1, RepairRespelledEnd: 3, RepairUnknownEnd: 2, RepairSelfLoop: 1}},
		{"predicates cut before the object they name, word by word",
			Output{Entities: ents("Emma", "Initech", "Big Blue", "Lisbon", "판교"), Facts: []wire.ExtractedFact{
				named("Emma", "STARTED_AT_INITECH_ON_APRIL_1", "Initech"), named("Emma", "lived in Lisbon since 2023", "Lisbon"),
				named("Emma", "WORKS_AT_BIG_BLUE", "Big Blue"), named("Emma", "LIVES_IN_판교", "판교"),
				named("Emma", "INITECH_HIRED", "Initech"), named("Emma", "WORKS_AT_BIG", "Big Blue"), named("Emma", "VISITED_LISBONS", "Lisbon")}},
			Output{Entities: ents("Emma", "Initech", "Big Blue", "Lisbon", "판교"), Facts: []wire.ExtractedFact{
				named("Emma", "STARTED_AT", "Initech"), named("Emma", "LIVED_IN", "Lisbon"),
				named("Emma", "WORKS_AT", "Big Blue"), named("Emma", "LIVES_IN", "판교"),
				named("Emma", "INITECH_HIRED", "Initech"), named("Emma", "WORKS_AT_BIG", "Big Blue"), named("Emma", "VISITED_LISBONS", "Lisbon")}},
			Repairs{RepairPredicateEnd: 4}},
		{"a fact without a sentence given one from its triple, after the predicate's cut",
			Output{Entities: ents("Emma", "Manchester", "판교"), Facts: []wire.ExtractedFact{
				{Source: "Emma", Target: "Manchester", Predicate: "LIVES_IN Manchester", Fact: " ", Kind: wire.KindState},
				{Source: "Emma", Target: "판교", Predicate: "lives in", Kind: wire.KindState}}},
			Output{Entities: ents("Emma", "Manchester", "판교"), Facts: []wire.ExtractedFact{
				{Source: "Emma", Target: "Manchester", Predicate: "LIVES_IN", Fact: "Emma lives in Manchester.", Kind: wire.KindState},
				{Source: "Emma", Target: "판교", Predicate: "lives in", Fact: "Emma lives in 판교.", Kind: wire.KindState}}},
			Repairs{RepairPredicateEnd: 1, RepairEmptySentence: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := repair(tt.out, in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("repair =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(rep, tt.wantRepairs) {
				t.Errorf("repairs = %v, want %v", rep, tt.wantRepairs)
			}
		})
	}
	if !isExcluded("", []string{"Entity"}) || isExcluded("Person", []string{"Entity"}) {
		t.Error("isExcluded: an empty type is Entity")
	}
}

// TestRepairAddsEndpoints: a fact endpoint no entity had is added when it is the speaker or a
// name the episode's content contains as a word; phrases, lower-case words, dates, parts of
// longer words and names a rule dropped are not.
func TestRepairAddsEndpoints(t *testing.T) {
	in := wire.ExtractInput{Episode: wire.EpisodeIn{Source: "message", Speaker: "Emma",
		Content: "I live in Leeds, close to the office. Gold product on May 7! 준호는 아이스티를 좋아해요. I got a new job at Big Blue Widget Company Ltd."},
		ExcludedTypes: []string{"Plan"}}
	tests := []struct {
		name        string
		out         Output
		want        Output
		wantRepairs Repairs
	}{
		{"the speaker and names in the content added",
			Output{Entities: ents("Office"), Facts: []wire.ExtractedFact{fact("Emma", "Leeds."), fact("준호", "아이스티")}},
			Output{Entities: ents("Office", "Emma", "Leeds", "준호", "아이스티"), Facts: []wire.ExtractedFact{fact("Emma", "Leeds"), fact("준호", "아이스티")}},
			Repairs{RepairAddedEnd: 4}},
		{"a trailing full stop respelled to a listed entity",
			Output{Entities: ents("Emma", "Leeds"), Facts: []wire.ExtractedFact{fact("Emma", "Leeds.")}},
			Output{Entities: ents("Emma", "Leeds"), Facts: []wire.ExtractedFact{fact("Emma", "Leeds")}},
			Repairs{RepairRespelledEnd: 1}},
		{"lower-case words, phrases, dates, word parts, absent names and dropped names not added",
			Output{Entities: []wire.EntityMention{{Name: "Emma"}, {Name: "Gold", Type: "Plan"}},
				Facts: []wire.ExtractedFact{fact("Emma", "new job"), fact("Emma", "Big Blue Widget Company Ltd"), fact("Emma", "May 7"),
					fact("Emma", "Pro"), fact("Emma", "Paris"), fact("Emma", "Gold")}},
			Output{Entities: []wire.EntityMention{{Name: "Emma", Attributes: []wire.AttributeValue{}}}, Facts: []wire.ExtractedFact{}},
			Repairs{RepairExcluded: 1, RepairUnknownEnd: 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.want.Facts { // the fact text is the model's; endpoints are respelled
				tt.want.Facts[i].Fact = tt.out.Facts[i].Fact
			}
			got, rep := repair(tt.out, in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("repair =\n%+v\nwant\n%+v", got, tt.want)
			}
			if !reflect.DeepEqual(rep, tt.wantRepairs) {
				t.Errorf("repairs = %v, want %v", rep, tt.wantRepairs)
			}
		})
	}
	// Two-call mode: a name the entity answer gave with an excluded type is not added back by
	// the facts answer.
	r := newRepairer(in)
	kept := r.entities([]wire.EntityMention{{Name: "Emma"}, {Name: "Gold", Type: "plan"}})
	if _, facts := r.facts(kept, []wire.ExtractedFact{fact("Emma", "Gold")}); len(facts) != 0 || r.rep[RepairUnknownEnd] != 1 {
		t.Errorf("facts %+v, repairs %v: want the fact naming the excluded entity dropped", facts, r.rep)
	}
}
