package resolve

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

func TestResolveFacts(t *testing.T) {
	f := &fakeLLM{sameFact: func(a, b wire.FactIn) bool { return true }}
	env := testEnv(t, f)
	eps := episodes("g", 6)
	opts := personOrg
	opts.ExcludedTypes = []string{"plan"}
	at := "2024-01-01T00:00:00Z"
	exs := []stages.Extraction{
		{Entities: ents("Alice:Person", "Kakao:Organization"), Facts: []wire.ExtractedFact{fact("Alice", "works at", "Kakao", "Alice works at Kakao.", at)}},
		{Entities: ents("Alice:Person", "Kakao:Organization"), Facts: []wire.ExtractedFact{fact("alice", "WORKS_AT", "KAKAO", "alice works at Kakao", "")}},
		{Entities: ents("Alice:Person", "Kakao:Organization"), Facts: []wire.ExtractedFact{fact("Alice", "EMPLOYED_BY", "Kakao", "Alice is working at Kakao.", "")}},
		{Entities: ents("Alice:Person", "Kakao:Organization"), Facts: []wire.ExtractedFact{fact("Alice", "VISITED", "Kakao", "Alice visited the Pangyo office of Kakao in May.", "")}},
		{Entities: ents("Bob:Organization", "Kakao:Organization"), Facts: []wire.ExtractedFact{fact("Bob", "WORKS_AT", "Kakao", "Bob works at Kakao.", "")}},
		{Entities: ents("Alice:Person", "Basic:Plan"), Facts: []wire.ExtractedFact{fact("Alice", "HAS_PLAN", "Basic", "Alice has the Basic plan.", ""),
			fact("Alice", "WORKS_AT", "Alice", "Alice works at Alice.", "")}},
	}
	res := resolveT(t, env, opts, "g", eps, exs, nil)
	calls, pairs := f.take()
	if calls != 1 || !reflect.DeepEqual(pairs, []string{"Alice works at Kakao. | Alice is working at Kakao."}) {
		t.Fatalf("%d calls, pairs %q: want one call about the similar pair only", calls, pairs)
	}
	if got := entityNames(res.Entities); !reflect.DeepEqual(got, []string{"Alice", "Kakao", "Bob"}) {
		t.Fatalf("entities %q: the excluded Plan must be gone", got)
	}
	var got []string
	for _, x := range res.Facts {
		got = append(got, x.Predicate+": "+x.Fact)
	}
	want := []string{"WORKS_AT: Alice works at Kakao.", "VISITED: Alice visited the Pangyo office of Kakao in May.", "RELATES_TO: Bob works at Kakao."}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("facts %q, want %q", got, want)
	}
	first := res.Facts[0]
	if !reflect.DeepEqual(first.Episodes, []string{eps[0].UUID, eps[1].UUID, eps[2].UUID}) || first.Order != 0 || first.ValidAt == nil {
		t.Errorf("merged fact %+v: want the creating episode first, then the duplicates'", first)
	}
	// The memo answers the fact pair on a re-run.
	resolveT(t, env, opts, "g", eps, exs, res.Memo)
	if calls, _ := f.take(); calls != 0 {
		t.Errorf("re-run made %d calls", calls)
	}
}

func TestResolveFactsNotDuplicates(t *testing.T) {
	f := &fakeLLM{sameFact: func(a, b wire.FactIn) bool { return false }}
	env := testEnv(t, f)
	eps := episodes("g", 2)
	exs := []stages.Extraction{
		{Entities: ents("Alice", "Busan"), Facts: []wire.ExtractedFact{fact("Alice", "VISITED", "Busan", "Alice visited Busan in May 2023.", "")}},
		{Entities: ents("Alice", "Busan"), Facts: []wire.ExtractedFact{fact("Busan", "VISITED_BY", "Alice", "Alice visited Busan in August 2023.", "")}},
	}
	res := resolveT(t, env, Options{}, "g", eps, exs, nil)
	if calls, pairs := f.take(); calls != 1 || len(pairs) != 1 || !strings.Contains(pairs[0], "August") {
		t.Fatalf("%d calls, pairs %q: facts of either direction between the same entities are compared", calls, pairs)
	}
	if len(res.Facts) != 2 {
		t.Fatalf("%d facts, want 2", len(res.Facts))
	}
}

// A fact the extraction cites to a previous episode (stages.Extraction.Quoted) is that episode's:
// its episodes, reference time and order, and it is merged with the same fact that episode
// gave. A Back beyond the group's start is ignored.
func TestResolveQuotedFacts(t *testing.T) {
	env := testEnv(t, &fakeLLM{})
	eps := episodes("g", 4)
	exs := []stages.Extraction{
		{Entities: ents("Alice", "York"), Facts: []wire.ExtractedFact{fact("Alice", "LIVES_IN", "York", "Alice lived in York.", "")}},
		{Entities: ents("Bob", "Leeds")},
		{Entities: ents("Alice", "York", "Bob", "Leeds"), Facts: []wire.ExtractedFact{
			fact("Bob", "MOVED_TO", "Leeds", "Bob moved to Leeds.", ""),
			fact("Alice", "LIVES_IN", "York", "Alice lived in York.", ""),
			fact("Bob", "LIKES", "Leeds", "Bob likes Leeds.", "")},
			Quoted: []stages.Quote{{Fact: 0, Back: 1}, {Fact: 1, Back: 2}}},
		{Entities: ents("Bob", "Hull"), Facts: []wire.ExtractedFact{fact("Bob", "VISITED", "Hull", "Bob visited Hull.", "")},
			Quoted: []stages.Quote{{Fact: 0, Back: 4}}},
	}
	res := resolveT(t, env, Options{}, "g", eps, exs, nil)
	var got []string
	for _, f := range res.Facts {
		var at []int
		for _, u := range f.Episodes {
			for i, ep := range eps {
				if ep.UUID == u {
					at = append(at, i)
				}
			}
		}
		got = append(got, fmt.Sprintf("%s %v order %d at +%.0fh", f.Fact, at, f.Order, f.ReferenceTime.Sub(t0).Hours()))
	}
	want := []string{
		"Alice lived in York. [0] order 0 at +0h",
		"Bob moved to Leeds. [1] order 1 at +1h",
		"Bob likes Leeds. [2] order 2 at +2h",
		"Bob visited Hull. [3] order 3 at +3h",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("facts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
