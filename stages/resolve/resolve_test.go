package resolve

import (
	"reflect"
	"slices"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

var personOrg = Options{EntityTypes: []wire.EntityTypeIn{{Name: "Person", Attributes: []string{"city"}}, {Name: "Organization"}, {Name: "Plan"}},
	EdgeTypes: []wire.EdgeTypeIn{{Name: "WORKS_AT", Sources: []string{"Person"}, Targets: []string{"Organization"}}}}

// seoyeon is a group where one person is "Seoyeon Park", "Seoyeon", "Park Seoyeon" and "서연".
func seoyeon() ([]graph.Episode, []stages.Extraction) {
	eps := episodes("g", 4)
	exs := []stages.Extraction{
		{Entities: ents("Seoyeon Park:Person", "Naver:Organization"), Facts: []wire.ExtractedFact{fact("Seoyeon Park", "WORKS_AT", "Naver", "Seoyeon Park works at Naver.", "")}},
		{Entities: ents("Seoyeon:Person", "Minho:Person"), Facts: []wire.ExtractedFact{fact("Seoyeon", "KNOWS", "Minho", "Seoyeon knows Minho.", "")}},
		{Entities: ents("Park Seoyeon", "Busan"), Facts: []wire.ExtractedFact{fact("Park Seoyeon", "LIVES_IN", "Busan", "Park Seoyeon lives in Busan.", "")}},
		{Entities: ents("서연", "Minho:Person"), Facts: []wire.ExtractedFact{fact("서연", "FRIEND_OF", "Minho", "서연은 Minho와 친구예요.", "")}},
	}
	return eps, exs
}

func TestResolveConsultsLLMOnlyForAmbiguousPairs(t *testing.T) {
	f := &fakeLLM{sameEntity: func(a, b wire.CandidateIn) bool { return true }}
	env := testEnv(t, f)
	eps, exs := seoyeon()
	res := resolveT(t, env, personOrg, "g", eps, exs, nil)
	calls, pairs := f.take()
	// "Park Seoyeon" meets "Seoyeon Park" by word order, deterministically; the three remaining
	// clusters are compared pairwise by the LLM, in one call.
	want := []string{"Seoyeon Park | Seoyeon", "Seoyeon Park | 서연", "Seoyeon | 서연"}
	if calls != 1 || !reflect.DeepEqual(pairs, want) {
		t.Fatalf("LLM calls %d, pairs %q; want 1 call, pairs %q", calls, pairs, want)
	}
	if res.Stats.EntityPairs != 3 || res.Stats.EntityAsked != 3 {
		t.Errorf("stats %+v", res.Stats)
	}
	if got := entityNames(res.Entities); !reflect.DeepEqual(got, []string{"Seoyeon Park", "Naver", "Minho", "Busan"}) {
		t.Fatalf("entities %q", got)
	}
	if e := res.Entities[0]; e.UUID != graph.EntityID("g", "seoyeon park") || !reflect.DeepEqual(e.Labels, []string{"Person"}) {
		t.Errorf("merged entity %+v", e)
	}
	for _, fct := range res.Facts {
		if fct.Source != res.Entities[0].UUID {
			t.Errorf("fact %q not on the merged entity", fct.Fact)
		}
	}

	// A re-run with the stored memo asks nothing and gives the same entities.
	again := resolveT(t, env, personOrg, "g", eps, exs, res.Memo)
	if calls, _ := f.take(); calls != 0 || !reflect.DeepEqual(again.Entities, res.Entities) {
		t.Fatalf("re-run made %d calls; entities equal: %v", calls, reflect.DeepEqual(again.Entities, res.Entities))
	}

	// An incremental run with a new spelling asks about it against the assembled entity only.
	eps5 := episodes("g", 5)
	exs5 := append(slices.Clone(exs), stages.Extraction{Entities: ents("박서연")})
	inc := resolveT(t, env, personOrg, "g", eps5, exs5, again.Memo)
	if calls, pairs := f.take(); calls != 1 || !reflect.DeepEqual(pairs, []string{"Seoyeon Park | 박서연"}) {
		t.Fatalf("incremental run: %d calls, pairs %q", calls, pairs)
	}
	if len(inc.Entities) != 4 || inc.Entities[0].UUID != res.Entities[0].UUID {
		t.Errorf("incremental entities %q", entityNames(inc.Entities))
	}
}

func TestResolveWithoutLLMKeepsAmbiguousApart(t *testing.T) {
	f := &fakeLLM{}
	env := testEnv(t, f)
	eps, exs := seoyeon()
	opts := personOrg
	opts.NoLLM = true
	res := resolveT(t, env, opts, "g", eps, exs, nil)
	if calls, _ := f.take(); calls != 0 {
		t.Fatalf("%d calls with NoLLM", calls)
	}
	want := []string{"Seoyeon Park", "Naver", "Seoyeon", "Minho", "Busan", "서연"}
	if got := entityNames(res.Entities); !reflect.DeepEqual(got, want) {
		t.Fatalf("entities %q, want %q", got, want)
	}
}

func TestResolveLLMNoIsRemembered(t *testing.T) {
	f := &fakeLLM{sameEntity: func(a, b wire.CandidateIn) bool { return false }}
	env := testEnv(t, f)
	eps, exs := seoyeon()
	res := resolveT(t, env, personOrg, "g", eps, exs, nil)
	if calls, _ := f.take(); calls != 1 || len(res.Entities) != 6 {
		t.Fatalf("%d calls, %d entities", calls, len(res.Entities))
	}
	resolveT(t, env, personOrg, "g", eps, exs, res.Memo)
	if calls, _ := f.take(); calls != 0 {
		t.Fatalf("re-run made %d calls", calls)
	}
	other := *res.Memo
	other.Version = "another model"
	resolveT(t, env, personOrg, "g", eps, exs, &other)
	if calls, _ := f.take(); calls != 1 {
		t.Fatalf("a memo of another version was used (%d calls)", calls)
	}
}

func TestResolveKoreanParticles(t *testing.T) {
	tests := []struct {
		name      string
		mentions  []string
		want      []string // entity names
		wantCanon string   // key of the first entity's id
		wantPairs []string
	}{
		{"particles meet the bare name", []string{"지훈은", "지훈", "지훈의", "지훈이"}, []string{"지훈"}, "지훈", nil},
		{"a name ending like a particle stays whole", []string{"이지은", "민수"}, []string{"이지은", "민수"}, "이지은", nil},
		{"a name with a particle meets the name", []string{"이지은", "이지은은", "이지은의"}, []string{"이지은"}, "이지은", nil},
		{"unattested stem goes to the LLM", []string{"지훈은", "지훈이"}, []string{"지훈은"}, "지훈은", []string{"지훈은 | 지훈이"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLLM{sameEntity: func(a, b wire.CandidateIn) bool { return true }}
			env := testEnv(t, f)
			eps := episodes("g", len(tt.mentions))
			exs := make([]stages.Extraction, len(eps))
			for i, m := range tt.mentions {
				exs[i] = stages.Extraction{Entities: ents(m)}
			}
			res := resolveT(t, env, Options{}, "g", eps, exs, nil)
			if got := entityNames(res.Entities); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("entities %q, want %q", got, tt.want)
			}
			if res.Entities[0].UUID != graph.EntityID("g", tt.wantCanon) {
				t.Errorf("id of %q is not made from %q", res.Entities[0].Name, tt.wantCanon)
			}
			if _, pairs := f.take(); !reflect.DeepEqual(pairs, tt.wantPairs) {
				t.Errorf("LLM pairs %q, want %q", pairs, tt.wantPairs)
			}
		})
	}
}

func TestResolveLabelsAndAttributes(t *testing.T) {
	env := testEnv(t, &fakeLLM{})
	eps := episodes("g", 3)
	attr := func(v string) []wire.AttributeValue { return []wire.AttributeValue{{Name: "City", Value: v}} }
	exs := []stages.Extraction{
		{Entities: []wire.EntityMention{{Name: "Alice", Type: "Entity"}, {Name: "Kakao", Type: "organization"}}},
		{Entities: []wire.EntityMention{{Name: "ALICE", Type: "Person", Attributes: attr("Seoul")}, {Name: "Kakao", Type: "Unknown"}}},
		{Entities: []wire.EntityMention{{Name: "alice", Type: "Person", Attributes: append(attr("Pangyo"), wire.AttributeValue{Name: "age", Value: "30"})}}},
	}
	res := resolveT(t, env, personOrg, "g", eps, exs, nil)
	if len(res.Entities) != 2 {
		t.Fatalf("entities %q", entityNames(res.Entities))
	}
	alice, kakao := res.Entities[0], res.Entities[1]
	if alice.Name != "Alice" || !reflect.DeepEqual(alice.Labels, []string{"Person"}) ||
		!reflect.DeepEqual(alice.Attributes, map[string]any{"city": "Pangyo"}) {
		t.Errorf("alice = %+v: want the Person label promoted over Entity and the latest city only", alice)
	}
	if !reflect.DeepEqual(kakao.Labels, []string{"Organization"}) || kakao.Attributes != nil {
		t.Errorf("kakao = %+v: want the ontology's spelling and no unknown type", kakao)
	}
	if len(res.Mentions) != 5 {
		t.Errorf("%d mentions, want 5 (one per episode and entity)", len(res.Mentions))
	}
}
