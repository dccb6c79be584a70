package offline

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm"
)

func TestResolveEntities(t *testing.T) {
	tests := []struct {
		name string
		a, b llm.CandidateIn
		same bool
	}{
		{"first name in full name", llm.CandidateIn{Name: "Seoyeon Park", Type: "Person"}, llm.CandidateIn{Name: "Seoyeon"}, true},
		{"word order", llm.CandidateIn{Name: "Park Seoyeon"}, llm.CandidateIn{Name: "Seoyeon Park"}, true},
		{"Hangul given name", llm.CandidateIn{Name: "Seoyeon Park"}, llm.CandidateIn{Name: "서연"}, true},
		{"Hangul full name", llm.CandidateIn{Name: "박서연"}, llm.CandidateIn{Name: "Park Seoyeon"}, true},
		{"through an alias", llm.CandidateIn{Name: "Dr. Kim", Aliases: []string{"Minji Kim"}}, llm.CandidateIn{Name: "Minji"}, true},
		{"family name alone", llm.CandidateIn{Name: "Park"}, llm.CandidateIn{Name: "Park Seoyeon"}, false},
		{"possessive", llm.CandidateIn{Name: "Nisha's dad"}, llm.CandidateIn{Name: "Nisha"}, false},
		{"Korean possessive", llm.CandidateIn{Name: "민수의 형"}, llm.CandidateIn{Name: "민수"}, false},
		{"types disagree", llm.CandidateIn{Name: "Apple", Type: "Organization"}, llm.CandidateIn{Name: "Apple", Type: "Food"}, false},
		{"not a proper name", llm.CandidateIn{Name: "support group"}, llm.CandidateIn{Name: "LGBTQ support group"}, false},
		{"different people", llm.CandidateIn{Name: "Seoyeon Park"}, llm.CandidateIn{Name: "Minho Park"}, false},
		{"case only", llm.CandidateIn{Name: "mom"}, llm.CandidateIn{Name: "Mom"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.a.ID, tt.b.ID = "N0", "N1"
			out := resolveEntities(llm.ResolveInput{Entities: []llm.CandidateIn{tt.a, tt.b},
				Pairs: []llm.PairIn{{ID: "P0", A: "N0", B: "N1"}, {ID: "P1", A: "N0", B: "N9"}, {ID: "X2", A: "N0", B: "N1"}}})
			want := []string{}
			if tt.same {
				want = []string{"P0"}
			}
			if !reflect.DeepEqual(out.Same, want) {
				t.Errorf("same_ids = %q, want %q", out.Same, want)
			}
		})
	}
}

func TestDedupeFacts(t *testing.T) {
	may, aug := "2023-05-01T00:00:00Z", "2023-08-01T00:00:00Z"
	tests := []struct {
		name string
		a, b llm.FactIn
		dup  bool
	}{
		{"same sentence", llm.FactIn{Fact: "Alice works at Kakao."}, llm.FactIn{Fact: "alice works at kakao"}, true},
		{"close wording, same dates", llm.FactIn{Fact: "Alice visited Busan with Ben in May.", ValidAt: &may},
			llm.FactIn{Fact: "Alice visited Busan in May with Ben.", ValidAt: &may}, true},
		{"close wording, other date", llm.FactIn{Fact: "Alice visited Busan with Ben.", ValidAt: &may},
			llm.FactIn{Fact: "Alice visited Busan with Ben.", ValidAt: &aug}, true}, // same sentence wins
		{"other occurrence", llm.FactIn{Fact: "Alice visited Busan with Ben in May.", ValidAt: &may},
			llm.FactIn{Fact: "Alice visited Busan with Ben in August.", ValidAt: &aug}, false},
		{"different facts", llm.FactIn{Fact: "Alice works at Kakao."}, llm.FactIn{Fact: "Alice left Kakao last year."}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.a.ID, tt.b.ID = "F0", "F1"
			out := dedupeFacts(llm.DedupeInput{Facts: []llm.FactIn{tt.a, tt.b}, Pairs: []llm.PairIn{{ID: "P0", A: "F0", B: "F1"}}})
			if got := len(out.Duplicates) == 1 && out.Duplicates[0] == "P0"; got != tt.dup {
				t.Errorf("duplicate_ids = %q, want dup=%v", out.Duplicates, tt.dup)
			}
		})
	}
}
