package offline

import (
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestExtractEnglish(t *testing.T) {
	const S = "state"
	tests := []struct {
		name, content string
		want          []wantFact
	}{
		{"works at", "I work at Kakao.", []wantFact{{"Alice", "WORKS_AT", "Kakao", S, "ref", "", "Alice works at Kakao."}}},
		{"working since", "I've been working at Kakao Mobility since 2022.",
			[]wantFact{{"Alice", "WORKS_AT", "Kakao Mobility", S, "2022-01-01", "", "(since 2022-01-01)"}}},
		{"joined on date", "I joined Naver on March 2.", []wantFact{{"Alice", "WORKS_AT", "Naver", S, "2024-03-02", "", ""}}},
		{"started last week", "I started at Microsoft last week.", []wantFact{{"Alice", "WORKS_AT", "Microsoft", S, "2024-03-04", "", ""}}},
		{"left and joined", "Big news: I left Kakao on March 2 and joined Naver.", []wantFact{
			{"Alice", "WORKS_AT", "Kakao", S, "", "2024-03-02", "Alice worked at Kakao (until 2024-03-02)."},
			{"Alice", "WORKS_AT", "Naver", S, "2024-03-02", "", "Alice works at Naver"}}},
		{"date fragment", "On March 2, I joined Naver.", []wantFact{{"Alice", "WORKS_AT", "Naver", S, "2024-03-02", "", ""}}},
		{"used to until", "I used to work at Samsung until 2020.",
			[]wantFact{{"Alice", "WORKS_AT", "Samsung", S, "", "2020-01-01", "Alice worked at Samsung"}}},
		{"no longer", "I don't work at Kakao anymore.", []wantFact{{"Alice", "WORKS_AT", "Kakao", S, "", "ref", "worked"}}},
		{"on the team", "I'm on the payments team.", []wantFact{{"Alice", "MEMBER_OF_TEAM", "Payments team", S, "ref", "", "Alice is on the Payments team."}}},
		{"moved team", "I moved to the data platform team yesterday.",
			[]wantFact{{"Alice", "MEMBER_OF_TEAM", "Data Platform team", S, "2024-03-10", "", ""}}},
		{"team until", "I'm on the Search team until June.",
			[]wantFact{{"Alice", "MEMBER_OF_TEAM", "Search team", S, "ref", "2024-06-01", "until 2024-06-01"}}},
		{"lives in", "I live in Pangyo.", []wantFact{{"Alice", "LIVES_IN", "Pangyo", S, "ref", "", "Alice lives in Pangyo."}}},
		{"moved city", "I moved to Seattle last month.", []wantFact{{"Alice", "LIVES_IN", "Seattle", S, "2024-02-01", "", ""}}},
		{"past with start", "Before Pangyo, I lived in Bundang since 2023.",
			[]wantFact{{"Alice", "LIVES_IN", "Bundang", S, "2023-01-01", "", "Alice lived in Bundang (since 2023-01-01)."}}},
		{"favorite", "Yes, my favorite drink is green tea.",
			[]wantFact{{"Alice", "PREFERS", "green tea", S, "ref", "", "Alice's favorite drink is green tea."}}},
		{"prefer over", "These days I prefer coffee over tea.",
			[]wantFact{{"Alice", "PREFERS", "coffee", S, "ref", "", "Alice prefers coffee over tea."}}},
		{"love", "I love spicy food.", []wantFact{{"Alice", "PREFERS", "spicy food", S, "ref", "", ""}}},
		{"quoted product", `I really like the "Galaxy Buds".`, []wantFact{{"Alice", "PREFERS", "Galaxy Buds", S, "ref", "", ""}}},
		{"plan without object", "The work at Naver is hectic. I will resign at the end of next month.",
			[]wantFact{{"Alice", "PLANS_TO", "Naver", "plan", "ref", "", "Alice plans to resign at the end of next month (2024-04-30)."}}},
		{"deadline", "I will finish the report by Friday.",
			[]wantFact{{"Alice", "PLANS_TO", "report", "plan", "ref", "", "(by 2024-03-15)"}}},
		{"plan with rule", "I'm going to move to Busan next month.",
			[]wantFact{{"Alice", "PLANS_TO", "Busan", "plan", "ref", "", "Alice plans to move to Busan next month (2024-04-01)."}}},
		{"third person", "My sister Carol works at Google in London.", []wantFact{{"Carol", "WORKS_AT", "Google", S, "ref", "", ""}}},
		{"out of stock until", "The Aurora Lamp is out of stock until Dec 25.",
			[]wantFact{{"Aurora Lamp", "IS_OUT_OF_STOCK", "out of stock", S, "ref", "2024-12-25", "Aurora Lamp is out of stock (until 2024-12-25)."}}},
		{"out of stock at", "The Aurora Lamp is sold out at Harbor until Friday.",
			[]wantFact{{"Aurora Lamp", "IS_OUT_OF_STOCK", "Harbor", S, "ref", "2024-03-15", ""}}},
		{"visited", "I went to Jeju on February 2.", []wantFact{{"Alice", "VISITED", "Jeju", "event", "2024-02-02", "", "Alice visited Jeju (2024-02-02)."}}},
		{"question", "Do you still work at Kakao?", nil},
		{"pronoun subject", "He works at Kakao.", nil},
		{"common noun subject", "The weather will be bad tomorrow.", nil},
		{"hypothetical", "If I join Naver I will tell you.", nil},
		{"negation", "I don't work at Kakao.", nil},
		{"going to a place", "I'm going to the gym.", nil},
		{"stock needs a name", "It is out of stock.", nil},
		{"chit-chat", "Sounds fun. It has been raining here for two weeks.", nil},
		{"imperative is no preference", "Enjoy your day!", nil},
		{"contracted pronoun", "You'll love exploring the culture.", nil},
		{"no stated subject", "Will do!", nil},
		{"gerund subject", "Going to community meetings has helped me.", nil},
		{"noun phrase ends at punctuation", "I'm a big fan of pottery - the creativity is great.",
			[]wantFact{{"Alice", "PREFERS", "pottery", S, "ref", "", "Alice prefers pottery."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkFacts(t, extract(message("Alice", tt.content)), tt.want)
		})
	}
}

func TestExtractEnglishEntities(t *testing.T) {
	tests := []struct {
		name, speaker, content string
		types                  []wire.EntityTypeIn
		want                   []wire.ExtractedEntity
	}{
		{"speaker only", "Ben", "Nice. Sounds fun!", nil, []wire.ExtractedEntity{{Name: "Ben", Type: "Entity"}}},
		{"mid-sentence names", "Ben", "Hi Alice, say hi to Carol for me. Monday is fine.", nil,
			[]wire.ExtractedEntity{{Name: "Ben", Type: "Entity"}, {Name: "Alice", Type: "Entity"}, {Name: "Carol", Type: "Entity"}}},
		{"ontology types", "Alice", "I work at Kakao and I live in Pangyo.",
			[]wire.EntityTypeIn{{Name: "Person"}, {Name: "Organization"}, {Name: "Location"}},
			[]wire.ExtractedEntity{{Name: "Alice", Type: "Person"}, {Name: "Kakao", Type: "Organization"}, {Name: "Pangyo", Type: "Location"}}},
		{"team word not doubled", "Alice", "I'm on the Clova team at Naver now.", nil,
			[]wire.ExtractedEntity{{Name: "Alice", Type: "Entity"}, {Name: "Clova team", Type: "Entity"}, {Name: "Naver", Type: "Entity"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := message(tt.speaker, tt.content)
			in.EntityTypes = tt.types
			out := extract(in)
			if len(out.Entities) != len(tt.want) {
				t.Fatalf("entities = %v, want %v", out.Entities, tt.want)
			}
			for i := range tt.want {
				if out.Entities[i] != tt.want[i] {
					t.Errorf("entity %d = %v, want %v", i, out.Entities[i], tt.want[i])
				}
			}
		})
	}
}

func TestExtractMissingSubjectFromPrevious(t *testing.T) {
	in := wire.ExtractInput{
		Episode:  wire.EpisodeIn{ReferenceTime: testRef, Source: "text", Content: "Joined Naver last week."},
		Previous: []wire.EpisodeIn{{ReferenceTime: testRef, Source: "message", Speaker: "Alice", Content: "Hi!"}},
	}
	checkFacts(t, extract(in), []wantFact{{"Alice", "WORKS_AT", "Naver", "state", "2024-03-04", "", ""}})

	in.Previous = nil // nobody to attribute it to
	checkFacts(t, extract(in), nil)
}

func TestExtractUnknownReferenceTime(t *testing.T) {
	in := message("Alice", "I joined Naver yesterday.")
	in.Episode.ReferenceTime = "last Tuesday"
	out := extract(in)
	if len(out.Facts) != 1 || out.Facts[0].ValidAt != nil || out.Facts[0].InvalidAt != nil {
		t.Fatalf("facts = %+v, want one fact without dates", out.Facts)
	}
}
