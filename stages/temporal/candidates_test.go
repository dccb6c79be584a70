package temporal

import (
	"maps"
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/stages"
)

// defaultRules are the shipped cardinalities with no entity names.
func defaultRules() Rules { return NewRules(DefaultCardinalities(), nil) }

func TestCandidatesScopedToEndpoints(t *testing.T) {
	facts := []stages.ResolvedFact{
		fact("a", "me", "kakao", "WORKS_AT", "2026-01-01", "", "", "state"),
		fact("b", "you", "seoul", "LIVES_IN", "2026-01-02", "", "", "state"),
		fact("c", "me", "pizza", "LIKES", "2026-01-03", "", "", "state"),
		fact("d", "kakao", "me", "EMPLOYS", "2026-01-04", "", "", "state"),
		fact("e", "me", "naver", "WORKS_AT", "2026-01-05", "", "", "state"),
		fact("f", "you", "kakao", "WORKS_AT", "2026-01-06", "", "", "state"),
		fact("g", "kakao", "you", "WORKS_AT", "2026-01-07", "", "", "state"),
		fact("h", "me", "kakao", "LIKES", "2026-01-08", "", "", "state"),
	}
	tests := []struct {
		i                               int
		existing, invalidation, settled []int
		ineligible                      int
		why                             string
	}{
		{0, nil, nil, nil, 0, "the first fact has no earlier facts"},
		{2, nil, nil, nil, 0, "same subject, other predicate, other object"},
		{3, []int{0}, nil, nil, 1, "the same unordered pair with another predicate: no negation, not for the judge"},
		{4, nil, nil, []int{0}, 0, "the same source with a relation of cardinality one: settled without the judge"},
		{5, nil, nil, nil, 1, "the same target with the same predicate: another source's job, no negation"},
		{6, []int{5}, []int{5}, nil, 0, "a shared endpoint in the other role is not enough; the reversed pair is"},
		{7, []int{0, 3}, nil, nil, 3, "the same pair with other predicates, and the same source with LIKES (many)"},
	}
	got := FindCandidates(facts, 20, defaultRules())
	for _, tt := range tests {
		c := got[tt.i]
		if !sameInts(c.Existing, tt.existing) || !sameInts(c.Invalidation, tt.invalidation) || !sameInts(c.Settled, tt.settled) ||
			c.Ineligible != tt.ineligible {
			t.Errorf("%s: %s: got %+v, want existing %v invalidation %v settled %v ineligible %d", facts[tt.i].UUID, tt.why, c,
				tt.existing, tt.invalidation, tt.settled, tt.ineligible)
		}
	}
}

// named builds a fact between named entities (the uuid is the lower-case name) with a sentence.
func named(id, src, tgt, pred, ref, sentence string) stages.ResolvedFact {
	f := fact(id, src, tgt, pred, ref, ref, "", "state")
	f.Fact = sentence
	return f
}

var names = map[string]string{"emma": "Emma", "bob": "Bob", "acme": "Acme", "globex": "Globex", "tea": "green tea",
	"coffee": "coffee", "paris": "Paris", "london": "London", "민서": "민서", "아메리카노": "아메리카노", "라떼": "라떼"}

func TestCandidatesUnderCardinality(t *testing.T) {
	facts := []stages.ResolvedFact{
		named("a", "emma", "acme", "WORKS_AT", "2026-01-01", "Emma works at Acme."),
		named("b", "emma", "tea", "LIKES", "2026-01-02", "Emma likes green tea."),
		named("c", "emma", "paris", "VISITED", "2026-01-03", "Emma visited Paris."),
		named("d", "emma", "globex", "WORKS_AT", "2026-01-04", "Emma works at Globex."),
		named("e", "emma", "london", "VISITED", "2026-01-05", "Emma visited London."),
		named("f", "emma", "acme", "LEFT", "2026-01-06", "Emma left Acme."),
		named("g", "emma", "coffee", "LIKES", "2026-01-07", "Emma likes coffee instead of green tea."),
		named("h", "emma", "tea", "LIKES", "2026-01-08", "Emma really likes green tea."),
		named("i", "bob", "acme", "WORKS_AT", "2026-01-09", "Bob works at Acme."),
		named("j", "emma", "london", "VISITED", "2026-01-10", "Emma never visited Paris; she visited London."),
		planned(named("k", "emma", "acme", "PLANS_TO", "2026-01-11", "Emma plans to quit Acme next month.")),
		planned(named("l", "emma", "kakao", "WORKS_AT", "2026-01-12", "Emma will work at Kakao from June.")),
	}
	tests := []struct {
		i                               int
		existing, invalidation, settled []int
		ineligible                      int
		saved                           bool
		why                             string
	}{
		{3, nil, nil, []int{0}, 0, true, "a new employer settles the old one with no call"},
		{4, nil, nil, nil, 1, true, "visiting two places: many, no negation, no call"},
		{5, []int{0}, []int{0}, nil, 0, false, "same pair, another relation, with a negation the old fact lacks"},
		{6, nil, []int{1}, nil, 0, false, "a comparison naming the old fact's object"},
		{7, []int{1}, []int{1}, nil, 1, false, "the same relation between the same entities, and coffee (many, not named)"},
		{8, nil, nil, nil, 1, true, "another source's employer (a shared target), never this one's"},
		{9, []int{4}, []int{2, 4}, nil, 0, false, "a negation naming Paris; the same pair (London)"},
		{10, []int{0, 5}, nil, nil, 2, false, "a plan to quit ends no state: asked for duplicates only"},
		{11, nil, nil, nil, 2, true, "a planned employer settles nothing (a plan is no state)"},
	}
	got := FindCandidates(facts, 20, NewRules(DefaultCardinalities(), names))
	for _, tt := range tests {
		c := got[tt.i]
		if !sameInts(c.Existing, tt.existing) || !sameInts(c.Invalidation, tt.invalidation) || !sameInts(c.Settled, tt.settled) ||
			c.Ineligible != tt.ineligible || c.Saved() != tt.saved {
			t.Errorf("%s: %s: got %+v (saved %v), want existing %v invalidation %v settled %v ineligible %d saved %v", facts[tt.i].UUID,
				tt.why, c, c.Saved(), tt.existing, tt.invalidation, tt.settled, tt.ineligible, tt.saved)
		}
	}
	// A job that makes WORKS_AT many leaves the new employer to the judge, who cannot close the
	// old one without a negation.
	card := maps.Clone(DefaultCardinalities())
	card["WORKS_AT"] = graph.CardinalityMany
	if c := FindCandidates(facts, 20, NewRules(card, names))[3]; len(c.Settled) != 0 || c.Ineligible != 1 {
		t.Errorf("WORKS_AT many: %+v", c)
	}
}

// planned is f as a plan.
func planned(f stages.ResolvedFact) stages.ResolvedFact {
	f.Kind = KindPlan
	return f
}

func TestCandidatesKeepTheMostRecent(t *testing.T) {
	var facts []stages.ResolvedFact
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		facts = append(facts, fact(id, "me", "x"+id, "LIVES_IN", "2026-01-01", "", "", "state"))
	}
	facts = append(facts, fact("same", "me", "xe", "VISITED", "2026-01-02", "", "", "event"))
	got := FindCandidates(facts, 2, defaultRules())
	if !sameInts(got[4].Settled, []int{2, 3}) {
		t.Errorf("capped settled candidates = %v, want the two most recent [2 3]", got[4].Settled)
	}
	if !sameInts(got[5].Existing, []int{4}) || len(got[5].Invalidation) != 0 || got[5].Ineligible != 1 {
		t.Errorf("candidates of same = %+v", got[5])
	}
}

func TestJudgeInputNamespacedIDs(t *testing.T) {
	facts := []stages.ResolvedFact{
		fact("a", "me", "kakao", "WORKS_AT", "2026-01-01", "2024-01-01", "", "state"),
		fact("b", "me", "naver", "WORKS_AT", "2026-01-02", "", "2025-01-01", "state"),
		fact("c", "me", "kakao", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
	}
	c := Candidates{Existing: []int{0}, Invalidation: []int{0, 1}}
	in := JudgeInput(facts, 2, c)
	if in.ReferenceTime != "2026-03-05T00:00:00Z" || in.New.ID != "" || in.New.Fact != "c" || *in.New.ValidAt != "2026-03-02T00:00:00Z" {
		t.Errorf("new fact = %+v at %s", in.New, in.ReferenceTime)
	}
	if len(in.Existing) != 1 || in.Existing[0].ID != "E0" || in.Existing[0].Fact != "a" {
		t.Errorf("existing = %+v", in.Existing)
	}
	if len(in.Candidates) != 2 || in.Candidates[0].ID != "I0" || in.Candidates[1].ID != "I1" || in.Candidates[1].Fact != "b" ||
		in.Candidates[1].ValidAt != nil || *in.Candidates[1].InvalidAt != "2025-01-01T00:00:00Z" {
		t.Errorf("candidates = %+v", in.Candidates)
	}
}

// TestDecodeChecksContradictions: a claimed contradiction is applied only with an I id of the
// list, a quote of the new sentence that the old one lacks, and a pair that passes the
// cardinality rule; every other claim is counted by reason. Settled candidates are contradicted
// whatever the answer says.
func TestDecodeChecksContradictions(t *testing.T) {
	facts := []stages.ResolvedFact{
		named("a", "emma", "acme", "WORKS_AT", "2026-01-01", "Emma works at Acme as an intern."),
		named("b", "emma", "tea", "LIKES", "2026-01-02", "Emma likes green tea."),
		named("c", "emma", "paris", "VISITED", "2026-01-03", "Emma visited Paris."),
		named("d", "emma", "globex", "WORKS_AT", "2026-01-04", "Emma works at Globex."),
		named("e", "emma", "acme", "WORKS_AT", "2026-01-05", "Emma no longer likes green tea and works at Acme as a manager, not in Paris."),
	}
	// As FindCandidates would not: every earlier fact offered, to check what a judge may claim.
	c := Candidates{Existing: []int{0}, Invalidation: []int{0, 1, 2}, Settled: []int{3}}
	con := func(id, quote string) wire.Contradiction { return wire.Contradiction{ID: id, Quote: quote} }
	tests := []struct {
		name     string
		out      wire.JudgeOutput
		want     []int
		rejected map[string]int
	}{
		{"same relation and entities, a new detail", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I0", "as a manager")}},
			[]int{3, 0}, nil},
		{"no quote", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I0", ""), con("I1", "  ")}},
			[]int{3}, map[string]int{RejectNoQuote: 2}},
		{"a quote of the old fact", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I0", "Emma works at Acme as an intern.")}},
			[]int{3}, map[string]int{RejectNotInNewFact: 1}},
		{"words both facts say", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I0", "works at acme")}},
			[]int{3}, map[string]int{RejectInOldFact: 1}},
		{"another relation with no negation", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I1", "a manager")}},
			[]int{3}, map[string]int{RejectCardinality: 1}},
		{"a negation naming the old object", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I1", "no longer likes green tea")}},
			[]int{3, 1}, nil},
		{"a negation that names another thing", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I1", "no longer")}},
			[]int{3}, map[string]int{RejectCardinality: 1}},
		{"a negation naming the place", wire.JudgeOutput{Contradictions: []wire.Contradiction{con("I2", "not in Paris")}},
			[]int{3, 2}, nil},
		{"unknown, malformed, repeated and wrong-namespace ids", wire.JudgeOutput{Contradictions: []wire.Contradiction{
			con("I3", "x"), con("I01", "x"), con("E0", "x"), con("I0", "as a manager"), con(" I0 ", "as a manager")}},
			[]int{3, 0}, map[string]int{RejectUnknownID: 4}},
		{"a duplicate is not also a contradiction", wire.JudgeOutput{Duplicates: []string{"E0"},
			Contradictions: []wire.Contradiction{con("I0", "as a manager")}}, []int{3}, map[string]int{RejectAlsoDuplicate: 1}},
		{"the settled pair stands without an answer", wire.JudgeOutput{}, []int{3}, nil},
	}
	rules := NewRules(DefaultCardinalities(), names)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, rejected := rules.Decode(facts, 4, c, tt.out)
			if !sameInts(j.Contradictions, tt.want) || !reflect.DeepEqual(rejected, tt.rejected) {
				t.Errorf("contradictions %v rejected %v, want %v %v", j.Contradictions, rejected, tt.want, tt.rejected)
			}
		})
	}
}

func TestDecodeDuplicatesIgnoreMalformedIDs(t *testing.T) {
	c := Candidates{Existing: []int{3, 5}}
	tests := []struct {
		name string
		dups []string
		want []int
	}{
		{"well formed", []string{"E1", "E0"}, []int{5, 3}},
		{"out of range and unknown", []string{"E2", "E7", "E99999999999"}, nil},
		{"wrong namespace", []string{"I0", "X0", "e0"}, nil},
		{"no number, sign, leading zero", []string{"E", "E+0", "E00", "E-1", "E1.0"}, nil},
		{"repeated", []string{"E1", "E1", " E1 "}, []int{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, _ := defaultRules().Decode(make([]stages.ResolvedFact, 6), 5, c, wire.JudgeOutput{Duplicates: tt.dups})
			if !sameInts(j.Duplicates, tt.want) {
				t.Errorf("got %v, want %v", j.Duplicates, tt.want)
			}
		})
	}
}

func sameInts(a, b []int) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
