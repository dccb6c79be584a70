package temporal

import (
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/stages/resolve"
)

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func dp(s string) *time.Time {
	if s == "" {
		return nil
	}
	t := day(s)
	return &t
}

// fact builds a resolved fact heard on ref (also its record time), valid from valid to invalid.
func fact(id, src, tgt, pred, ref, valid, invalid, kind string) resolve.Fact {
	return resolve.Fact{UUID: id, Source: src, Target: tgt, Predicate: pred, Fact: id, Kind: kind,
		ValidAt: dp(valid), InvalidAt: dp(invalid), Episodes: []string{"ep-" + id},
		ReferenceTime: day(ref), RecordTime: day(ref)}
}

type want struct {
	valid, invalid, expired string
}

func check(t *testing.T, got graph.Fact, w want) {
	t.Helper()
	for _, c := range []struct {
		name string
		got  *time.Time
		want string
	}{{"valid_at", got.ValidAt, w.valid}, {"invalid_at", got.InvalidAt, w.invalid}, {"expired_at", got.ExpiredAt, w.expired}} {
		if !graph.SameTime(c.got, dp(c.want)) {
			t.Errorf("%s %s = %v, want %q", got.UUID, c.name, c.got, c.want)
		}
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		facts []resolve.Fact
		judge []Judgement
		want  map[string]want
	}{
		{
			name: "rule 1: a fact arriving with invalid_at is recorded closed",
			facts: []resolve.Fact{
				fact("stock", "p", "s", "IS_OUT_OF_STOCK", "2026-12-01", "2026-12-01", "2026-12-25", "state"),
			},
			judge: []Judgement{{}},
			want:  map[string]want{"stock": {"2026-12-01", "2026-12-25", "2026-12-01"}},
		},
		{
			name: "rule 3: employer change closes the older fact at the new one's start",
			facts: []resolve.Fact{
				fact("kakao", "jihoon", "kakao", "WORKS_AT", "2026-01-10", "2026-01-10", "", "state"),
				fact("naver", "jihoon", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"kakao": {"2026-01-10", "2026-03-02", "2026-03-05"},
				"naver": {"2026-03-02", "", ""},
			},
		},
		{
			name: "rule 2: a fact heard later but started earlier is closed at the newer start",
			facts: []resolve.Fact{
				fact("pangyo", "me", "pangyo", "LIVES_IN", "2026-02-01", "2025-06-01", "", "state"),
				fact("bundang", "me", "bundang", "LIVES_IN", "2026-03-01", "2023-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"pangyo":  {"2025-06-01", "", ""},
				"bundang": {"2023-01-01", "2025-06-01", "2026-03-01"},
			},
		},
		{
			name: "rule 4: contradictory but not overlapping closes nothing",
			facts: []resolve.Fact{
				fact("cafe", "me", "cafe", "WORKS_AT", "2026-01-01", "2015-03-01", "2017-02-01", "state"),
				fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-02", "2024-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"cafe":  {"2015-03-01", "2017-02-01", "2026-01-01"},
				"kakao": {"2024-01-01", "", ""},
			},
		},
		{
			name: "rule 4: nothing closes when a valid_at is unknown",
			facts: []resolve.Fact{
				fact("old", "me", "a", "PREFERS", "2026-01-01", "", "", "state"),
				fact("new", "me", "b", "PREFERS", "2026-02-01", "2026-02-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"old": {"", "", ""},
				"new": {"2026-02-01", "", ""},
			},
		},
		{
			name: "duplicates merge into the earlier fact",
			facts: []resolve.Fact{
				fact("a", "me", "x", "LIKES", "2026-01-01", "2026-01-01", "", "state"),
				fact("b", "me", "x", "LIKES", "2026-02-01", "2026-02-01", "", "state"),
			},
			judge: []Judgement{{}, {Duplicates: []int{0}}},
			want:  map[string]want{"a": {"2026-01-01", "", ""}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.facts {
				tt.facts[i] = Normalize(tt.facts[i])
			}
			got, _ := Apply("g", tt.facts, tt.judge)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d facts, want %d", len(got), len(tt.want))
			}
			for _, f := range got {
				w, ok := tt.want[f.UUID]
				if !ok {
					t.Fatalf("unexpected fact %s", f.UUID)
				}
				check(t, f, w)
			}
		})
	}
}

func TestNormalizeFutureTense(t *testing.T) {
	tests := []struct {
		name string
		in   resolve.Fact
		want want
	}{
		{"a plan is valid from the day it was said, no invalid_at",
			fact("resign", "me", "co", "PLANS_TO", "2026-03-10", "2026-04-30", "2026-04-30", "plan"),
			want{"2026-03-10", "", ""}},
		{"a deadline has no invalid_at",
			fact("report", "me", "r", "PLANS_TO", "2026-03-10", "2026-03-13", "", "plan"),
			want{"2026-03-10", "", ""}},
		{"a state cannot start after it was stated",
			fact("naver", "me", "naver", "WORKS_AT", "2026-03-10", "2027-01-01", "", "state"),
			want{"2026-03-10", "", ""}},
		{"a scheduled state keeps its future start",
			fact("closed", "shop", "x", "IS_CLOSED", "2026-12-01", "2026-12-24", "2026-12-26", "scheduled_state"),
			want{"2026-12-24", "2026-12-26", ""}},
		{"an ongoing state ending on a date keeps its future invalid_at",
			fact("stock", "p", "s", "IS_OUT_OF_STOCK", "2026-12-01", "2026-12-01", "2026-12-25", "state"),
			want{"2026-12-01", "2026-12-25", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			check(t, graph.Fact{UUID: got.UUID, ValidAt: got.ValidAt, InvalidAt: got.InvalidAt}, tt.want)
		})
	}
}

func TestPoisonedLateStartCannotCloseEarlier(t *testing.T) {
	facts := []resolve.Fact{
		fact("true", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
		// Said on 2026-02-01, claiming a start in 2027: clamped to when it was said.
		fact("poison", "me", "evil", "WORKS_AT", "2026-02-01", "2027-01-01", "", "state"),
	}
	for i := range facts {
		facts[i] = Normalize(facts[i])
	}
	got, _ := Apply("g", facts, []Judgement{{}, {Contradictions: []int{0}}})
	for _, f := range got {
		if f.UUID == "true" && f.InvalidAt != nil && f.InvalidAt.Before(day("2026-02-01")) {
			t.Fatalf("true fact closed at %v, before the poisoned statement was made", f.InvalidAt)
		}
		if f.UUID == "poison" && !graph.SameTime(f.ValidAt, dp("2026-02-01")) {
			t.Fatalf("poisoned fact valid_at = %v, want clamped to when it was said", f.ValidAt)
		}
	}
}

func TestVersionLog(t *testing.T) {
	facts := []resolve.Fact{
		fact("basic", "acme", "basic", "HAS_PLAN", "2026-01-05", "2026-01-05", "", "state"),
		fact("pro", "acme", "pro", "HAS_PLAN", "2026-03-15", "2026-03-01", "", "state"),
	}
	_, vs := Apply("g", facts, []Judgement{{}, {Contradictions: []int{0}}})
	if len(vs) != 3 {
		t.Fatalf("got %d versions, want 3: %+v", len(vs), vs)
	}
	var closing *graph.FactVersion
	for i := range vs {
		if vs[i].FactUUID == "basic" && vs[i].Seq == 1 {
			closing = &vs[i]
		}
	}
	if closing == nil || !closing.RecordTime.Equal(day("2026-03-15")) || !graph.SameTime(closing.InvalidAt, dp("2026-03-01")) ||
		closing.Reason != "closed_by_newer" {
		t.Fatalf("closing version = %+v", closing)
	}
}

func TestDecodeIgnoresMalformedIDs(t *testing.T) {
	c := Candidates{Existing: []int{3}, Invalidation: []int{1, 3}}
	j := Decode(jo([]string{"E0", "E7", "X1", "I"}, []string{"I1", "I1", "E0", "I-1", " I0 "}), c)
	if len(j.Duplicates) != 1 || j.Duplicates[0] != 3 {
		t.Errorf("duplicates = %v", j.Duplicates)
	}
	if len(j.Contradictions) != 2 || j.Contradictions[0] != 3 || j.Contradictions[1] != 1 {
		t.Errorf("contradictions = %v", j.Contradictions)
	}
}

func TestCandidatesScopedToEndpoints(t *testing.T) {
	facts := []resolve.Fact{
		fact("a", "me", "kakao", "WORKS_AT", "2026-01-01", "", "", "state"),
		fact("b", "you", "seoul", "LIVES_IN", "2026-01-02", "", "", "state"),
		fact("c", "me", "pizza", "LIKES", "2026-01-03", "", "", "state"),
		fact("d", "kakao", "me", "EMPLOYS", "2026-01-04", "", "", "state"),
		fact("e", "me", "naver", "WORKS_AT", "2026-01-05", "", "", "state"),
	}
	got := FindCandidates(facts, 20)
	if len(got[4].Invalidation) != 1 || got[4].Invalidation[0] != 0 {
		t.Errorf("candidates of e = %+v, want only a (same source, same predicate)", got[4])
	}
	if len(got[3].Existing) != 1 || got[3].Existing[0] != 0 {
		t.Errorf("existing of d = %+v, want a (same unordered pair)", got[3])
	}
	if len(got[2].Invalidation) != 0 {
		t.Errorf("candidates of c = %+v, want none", got[2])
	}
}

func jo(d, c []string) llm.JudgeOutput { return llm.JudgeOutput{Duplicates: d, Contradictions: c} }
