package temporal

import (
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages/resolve"
)

func TestCandidatesScopedToEndpoints(t *testing.T) {
	facts := []resolve.Fact{
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
		i                      int
		existing, invalidation []int
		why                    string
	}{
		{0, nil, nil, "the first fact has no earlier facts"},
		{2, nil, nil, "same subject, other predicate, other object"},
		{3, []int{0}, []int{0}, "the same unordered pair, whatever the predicate"},
		{4, nil, []int{0}, "the same source in the same role with the same predicate"},
		{5, nil, []int{0}, "the same target in the same role with the same predicate"},
		{6, []int{5}, []int{5}, "a shared endpoint in the other role is not enough; the reversed pair is"},
		{7, []int{0, 3}, []int{0, 2, 3}, "the same pair with another predicate, and the same source with LIKES"},
	}
	got := FindCandidates(facts, 20)
	for _, tt := range tests {
		if !sameInts(got[tt.i].Existing, tt.existing) || !sameInts(got[tt.i].Invalidation, tt.invalidation) {
			t.Errorf("%s: %s: got %+v, want existing %v invalidation %v", facts[tt.i].UUID, tt.why, got[tt.i], tt.existing, tt.invalidation)
		}
	}
}

func TestCandidatesKeepTheMostRecent(t *testing.T) {
	var facts []resolve.Fact
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		facts = append(facts, fact(id, "me", "x"+id, "LIVES_IN", "2026-01-01", "", "", "state"))
	}
	facts = append(facts, fact("same", "me", "xe", "VISITED", "2026-01-02", "", "", "event"))
	got := FindCandidates(facts, 2)
	if !sameInts(got[4].Invalidation, []int{2, 3}) {
		t.Errorf("capped candidates = %v, want the two most recent [2 3]", got[4].Invalidation)
	}
	if !sameInts(got[5].Existing, []int{4}) || !sameInts(got[5].Invalidation, []int{4}) {
		t.Errorf("candidates of same = %+v", got[5])
	}
}

func TestJudgeInputNamespacedIDs(t *testing.T) {
	facts := []resolve.Fact{
		fact("a", "me", "kakao", "WORKS_AT", "2026-01-01", "2024-01-01", "", "state"),
		fact("b", "me", "naver", "WORKS_AT", "2026-01-02", "", "2025-01-01", "state"),
		fact("c", "me", "kakao", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
	}
	c := FindCandidates(facts, 20)[2]
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
	j := Decode(llm.JudgeOutput{Duplicates: []string{"E0"}, Contradictions: []string{"I1"}}, c)
	if !sameInts(j.Duplicates, []int{0}) || !sameInts(j.Contradictions, []int{1}) {
		t.Errorf("decoded %+v", j)
	}
}

func TestDecodeIgnoresMalformedIDs(t *testing.T) {
	c := Candidates{Existing: []int{3}, Invalidation: []int{1, 3}}
	tests := []struct {
		name        string
		dups, contr []string
		want        Judgement
	}{
		{"well formed", []string{"E0"}, []string{"I1", "I0"}, Judgement{[]int{3}, []int{3, 1}}},
		{"out of range and unknown", []string{"E1", "E7"}, []string{"I2", "I99999999999"}, Judgement{}},
		{"wrong namespace", []string{"I0", "X0"}, []string{"E0", "i0"}, Judgement{}},
		{"no number, sign, leading zero", []string{"E", "E+0", "E00"}, []string{"I", "I-1", "I+1", "I01", "I1.0"}, Judgement{}},
		{"repeated", nil, []string{"I1", "I1", " I1 "}, Judgement{nil, []int{3}}},
		{"spaces around are read", []string{" E0"}, []string{"I0 "}, Judgement{[]int{3}, []int{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decode(llm.JudgeOutput{Duplicates: tt.dups, Contradictions: tt.contr}, c)
			if !sameInts(got.Duplicates, tt.want.Duplicates) || !sameInts(got.Contradictions, tt.want.Contradictions) {
				t.Errorf("got %+v, want %+v", got, tt.want)
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
