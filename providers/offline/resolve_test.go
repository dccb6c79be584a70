package offline

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
)

func TestResolveEntities(t *testing.T) {
	tests := []struct {
		name string
		a, b wire.CandidateIn
		same bool
	}{
		{"first name in full name", wire.CandidateIn{Name: "Seoyeon Park", Type: "Person"}, wire.CandidateIn{Name: "Seoyeon"}, true},
		{"word order", wire.CandidateIn{Name: "Park Seoyeon"}, wire.CandidateIn{Name: "Seoyeon Park"}, true},
		{"Hangul given name", wire.CandidateIn{Name: "Seoyeon Park"}, wire.CandidateIn{Name: "서연"}, true},
		{"Hangul full name", wire.CandidateIn{Name: "박서연"}, wire.CandidateIn{Name: "Park Seoyeon"}, true},
		{"through an alias", wire.CandidateIn{Name: "Dr. Kim", Aliases: []string{"Minji Kim"}}, wire.CandidateIn{Name: "Minji"}, true},
		{"family name alone", wire.CandidateIn{Name: "Park"}, wire.CandidateIn{Name: "Park Seoyeon"}, false},
		{"possessive", wire.CandidateIn{Name: "Nisha's dad"}, wire.CandidateIn{Name: "Nisha"}, false},
		{"Korean possessive", wire.CandidateIn{Name: "민수의 형"}, wire.CandidateIn{Name: "민수"}, false},
		{"types disagree", wire.CandidateIn{Name: "Apple", Type: "Organization"}, wire.CandidateIn{Name: "Apple", Type: "Food"}, false},
		{"not a proper name", wire.CandidateIn{Name: "support group"}, wire.CandidateIn{Name: "LGBTQ support group"}, false},
		{"different people", wire.CandidateIn{Name: "Seoyeon Park"}, wire.CandidateIn{Name: "Minho Park"}, false},
		{"case only", wire.CandidateIn{Name: "mom"}, wire.CandidateIn{Name: "Mom"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.a.ID, tt.b.ID = "N0", "N1"
			out := resolveEntities(wire.ResolveInput{Entities: []wire.CandidateIn{tt.a, tt.b},
				Pairs: []wire.PairIn{{ID: "P0", A: "N0", B: "N1"}, {ID: "P1", A: "N0", B: "N9"}, {ID: "X2", A: "N0", B: "N1"}}})
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
		a, b wire.FactIn
		dup  bool
	}{
		{"same sentence", wire.FactIn{Fact: "Alice works at Kakao."}, wire.FactIn{Fact: "alice works at kakao"}, true},
		{"close wording, same dates", wire.FactIn{Fact: "Alice visited Busan with Ben in May.", ValidAt: &may},
			wire.FactIn{Fact: "Alice visited Busan in May with Ben.", ValidAt: &may}, true},
		{"close wording, other date", wire.FactIn{Fact: "Alice visited Busan with Ben.", ValidAt: &may},
			wire.FactIn{Fact: "Alice visited Busan with Ben.", ValidAt: &aug}, true}, // same sentence wins
		{"other occurrence", wire.FactIn{Fact: "Alice visited Busan with Ben in May.", ValidAt: &may},
			wire.FactIn{Fact: "Alice visited Busan with Ben in August.", ValidAt: &aug}, false},
		{"different facts", wire.FactIn{Fact: "Alice works at Kakao."}, wire.FactIn{Fact: "Alice left Kakao last year."}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.a.ID, tt.b.ID = "F0", "F1"
			out := dedupeFacts(wire.DedupeInput{Facts: []wire.FactIn{tt.a, tt.b}, Pairs: []wire.PairIn{{ID: "P0", A: "F0", B: "F1"}}})
			if got := len(out.Duplicates) == 1 && out.Duplicates[0] == "P0"; got != tt.dup {
				t.Errorf("duplicate_ids = %q, want dup=%v", out.Duplicates, tt.dup)
			}
		})
	}
}
