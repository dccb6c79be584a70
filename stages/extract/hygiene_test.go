package extract

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm"
)

func ents(names ...string) []llm.EntityMention {
	out := []llm.EntityMention{}
	for _, n := range names {
		out = append(out, llm.EntityMention{Name: n, Type: "Entity", Attributes: []llm.AttributeValue{}})
	}
	return out
}

func fact(s, o string) llm.ExtractedFact {
	return llm.ExtractedFact{Source: s, Target: o, Predicate: "KNOWS", Fact: s + " knows " + o + ".", Kind: llm.KindState}
}

func TestRepair(t *testing.T) {
	in := llm.ExtractInput{Episode: llm.EpisodeIn{ReferenceTime: "2024-05-07T10:00:00Z", Source: "json", Speaker: "42",
		Content: `{"status":"active","customer":"Kim"}`}, ExcludedTypes: []string{"plan", "Organization"}}
	tests := []struct {
		name        string
		out         Output
		want        Output
		wantRepairs Repairs
	}{
		{"clean answer untouched",
			Output{Entities: ents("Alice", "Bob"), Facts: []llm.ExtractedFact{fact("Alice", "Bob")}},
			Output{Entities: ents("Alice", "Bob"), Facts: []llm.ExtractedFact{fact("Alice", "Bob")}}, Repairs{}},
		{"duplicates merged, a specific type and new attributes kept",
			Output{Entities: []llm.EntityMention{{Name: " Alice ", Type: "Entity"}, {Name: "alice", Type: "Person",
				Attributes: []llm.AttributeValue{{Name: "age", Value: "30"}}}, {Name: ""}}},
			Output{Entities: []llm.EntityMention{{Name: "Alice", Type: "Person", Attributes: []llm.AttributeValue{{Name: "age", Value: "30"}}}},
				Facts: []llm.ExtractedFact{}},
			Repairs{RepairDuplicate: 1, RepairEmptyName: 1}},
		{"numbers, dates and input words dropped, ids and the speaker kept",
			Output{Entities: ents("5", "$30", "1,200", "3.5%", "3만원", "2024-05-07", "May 7", "yesterday", "end of next month", "어제", "2024",
				"10:30", "json", "Message", "status", "reference_time", "2024-05-07T10:00:00Z", "Kim", "100234", "42", "3M")},
			Output{Entities: ents("Kim", "100234", "42", "3M"), Facts: []llm.ExtractedFact{}},
			Repairs{RepairNumber: 5, RepairDate: 7, RepairInputWord: 5}},
		{"excluded types dropped with their facts",
			Output{Entities: []llm.EntityMention{{Name: "Alice"}, {Name: "Gold", Type: "Plan"}, {Name: "Bob", Type: ""}},
				Facts: []llm.ExtractedFact{fact("Alice", "Gold"), fact("Alice", "Bob")}},
			Output{Entities: []llm.EntityMention{{Name: "Alice", Attributes: []llm.AttributeValue{}}, {Name: "Bob", Attributes: []llm.AttributeValue{}}},
				Facts: []llm.ExtractedFact{fact("Alice", "Bob")}},
			Repairs{RepairExcluded: 1, RepairUnknownEnd: 1}},
		{"facts: unknown endpoints and self loops dropped, case respelled",
			Output{Entities: ents("Alice", "Bob", "json"),
				Facts: []llm.ExtractedFact{fact("alice", "BOB"), fact("Alice", "Carol"), fact("Alice", "json"), fact("Bob", "bob")}},
			Output{Entities: ents("Alice", "Bob"), Facts: []llm.ExtractedFact{{Source: "Alice", Target: "Bob", Predicate: "KNOWS",
				Fact: "alice knows BOB.", Kind: llm.KindState}}},
			Repairs{RepairInputWord: 1, RepairRespelledEnd: 3, RepairUnknownEnd: 2, RepairSelfLoop: 1}},
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
