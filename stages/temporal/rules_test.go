package temporal

import (
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
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
func fact(id, src, tgt, pred, ref, valid, invalid, kind string) stages.ResolvedFact {
	return stages.ResolvedFact{UUID: id, Source: src, Target: tgt, Predicate: pred, Fact: id, Kind: kind,
		ValidAt: dp(valid), InvalidAt: dp(invalid), Episodes: []string{"ep-" + id},
		ReferenceTime: day(ref), RecordTime: day(ref)}
}

// heard sets the record time of f (as under record_time: ingest).
func heard(f stages.ResolvedFact, rec string) stages.ResolvedFact {
	f.RecordTime = day(rec)
	return f
}

type want struct {
	valid, invalid, expired string
	episodes                int // checked when > 0
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
	if w.episodes > 0 && len(got.Episodes) != w.episodes {
		t.Errorf("%s episodes = %v, want %d", got.UUID, got.Episodes, w.episodes)
	}
}

// applyAll normalizes facts and applies the rules.
func applyAll(facts []stages.ResolvedFact, judge []Judgement) ([]graph.Fact, []graph.FactVersion) {
	for i := range facts {
		facts[i] = Rules{}.Normalize(facts[i])
	}
	return Apply("g", facts, judge)
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		facts []stages.ResolvedFact
		judge []Judgement
		want  map[string]want
	}{
		{
			name: "rule 1: a fact arriving with invalid_at is recorded closed",
			facts: []stages.ResolvedFact{
				fact("stock", "p", "s", "IS_OUT_OF_STOCK", "2026-12-01", "2026-12-01", "2026-12-25", "state"),
			},
			judge: []Judgement{{}},
			want:  map[string]want{"stock": {"2026-12-01", "2026-12-25", "2026-12-01", 0}},
		},
		{
			name: "rule 3: employer change closes the older fact at the new one's start",
			facts: []stages.ResolvedFact{
				fact("kakao", "jihoon", "kakao", "WORKS_AT", "2026-01-10", "2026-01-10", "", "state"),
				fact("naver", "jihoon", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"kakao": {"2026-01-10", "2026-03-02", "2026-03-05", 0},
				"naver": {"2026-03-02", "", "", 0},
			},
		},
		{
			name: "rule 3: a closed fact is re-closed earlier by a later-heard fact that started before the closer",
			facts: []stages.ResolvedFact{
				fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
				fact("naver", "me", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
				fact("coupang", "me", "coupang", "WORKS_AT", "2026-04-01", "2025-06-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}, {Contradictions: []int{0, 1}}},
			want: map[string]want{
				"kakao":   {"2024-01-01", "2025-06-01", "2026-03-05", 0},
				"coupang": {"2025-06-01", "2026-03-02", "2026-04-01", 0},
				"naver":   {"2026-03-02", "", "", 0},
			},
		},
		{
			name: "rule 2: a fact heard later but started earlier is closed at the newer start",
			facts: []stages.ResolvedFact{
				fact("pangyo", "me", "pangyo", "LIVES_IN", "2026-02-01", "2025-06-01", "", "state"),
				fact("bundang", "me", "bundang", "LIVES_IN", "2026-03-01", "2023-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"pangyo":  {"2025-06-01", "", "", 0},
				"bundang": {"2023-01-01", "2025-06-01", "2026-03-01", 0},
			},
		},
		{
			name: "rule 2: the earliest later start closes, whatever the judgement order",
			facts: []stages.ResolvedFact{
				fact("y", "me", "y", "LIVES_IN", "2026-01-01", "2024-01-01", "", "state"),
				fact("z", "me", "z", "LIVES_IN", "2026-01-02", "2022-01-01", "", "state"),
				fact("x", "me", "x", "LIVES_IN", "2026-01-03", "2020-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}, {Contradictions: []int{0, 1}}},
			want: map[string]want{
				"y": {"2024-01-01", "", "", 0},
				"z": {"2022-01-01", "2024-01-01", "2026-01-02", 0},
				"x": {"2020-01-01", "2022-01-01", "2026-01-03", 0},
			},
		},
		{
			name: "rule 4: contradictory but not overlapping closes nothing",
			facts: []stages.ResolvedFact{
				fact("cafe", "me", "cafe", "WORKS_AT", "2026-01-01", "2015-03-01", "2017-02-01", "state"),
				fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-02", "2024-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"cafe":  {"2015-03-01", "2017-02-01", "2026-01-01", 0},
				"kakao": {"2024-01-01", "", "", 0},
			},
		},
		{
			name: "rule 4: nothing closes when a valid_at is unknown (a fact that arrives closed)",
			facts: []stages.ResolvedFact{
				fact("old", "me", "a", "PREFERS", "2026-01-01", "", "2026-03-01", "state"),
				fact("new", "me", "b", "PREFERS", "2026-02-01", "2026-02-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"old": {"", "2026-03-01", "2026-01-01", 0},
				"new": {"2026-02-01", "", "", 0},
			},
		},
		{
			name: "a state the model left without dates starts at its reference time, and closes from it",
			facts: []stages.ResolvedFact{
				fact("old", "me", "a", "PREFERS", "2026-01-01", "", "", "state"),
				fact("new", "me", "b", "PREFERS", "2026-02-01", "", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"old": {"2026-01-01", "2026-02-01", "2026-02-01", 0},
				"new": {"2026-02-01", "", "", 0},
			},
		},
		{
			name: "equal valid_at: the fact later in group order wins",
			facts: []stages.ResolvedFact{
				fact("first", "me", "a", "LIVES_IN", "2026-01-05", "2026-01-01", "", "state"),
				fact("second", "me", "b", "LIVES_IN", "2026-01-06", "2026-01-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"first":  {"2026-01-01", "2026-01-01", "2026-01-06", 0},
				"second": {"2026-01-01", "", "", 0},
			},
		},
		{
			name: "a malformed interval (ends before it starts) neither closes nor is closed",
			facts: []stages.ResolvedFact{
				fact("home", "me", "a", "LIVES_IN", "2026-01-01", "2026-01-01", "", "state"),
				fact("bad", "me", "b", "LIVES_IN", "2026-02-01", "2026-02-01", "2025-12-01", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}},
			want: map[string]want{
				"home": {"2026-01-01", "", "", 0},
				"bad":  {"", "2025-12-01", "2026-02-01", 0},
			},
		},
		{
			name: "duplicates merge into the earlier fact",
			facts: []stages.ResolvedFact{
				fact("a", "me", "x", "LIKES", "2026-01-01", "2026-01-01", "", "state"),
				fact("b", "me", "x", "LIKES", "2026-02-01", "2026-02-01", "", "state"),
			},
			judge: []Judgement{{}, {Duplicates: []int{0}}},
			want:  map[string]want{"a": {"2026-01-01", "", "", 2}},
		},
		{
			name: "a duplicate of a closed fact within its period merges into it",
			facts: []stages.ResolvedFact{
				fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
				fact("naver", "me", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
				fact("kakao2", "me", "kakao", "WORKS_AT", "2026-04-01", "2024-06-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}, {Duplicates: []int{0}, Contradictions: []int{1}}},
			want: map[string]want{
				"kakao": {"2024-01-01", "2026-03-02", "2026-03-05", 2},
				"naver": {"2026-03-02", "", "", 1},
			},
		},
		{
			name: "a duplicate starting after the earlier fact ended is a new period; its contradictions apply",
			facts: []stages.ResolvedFact{
				fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
				fact("naver", "me", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
				fact("back", "me", "kakao", "WORKS_AT", "2026-06-05", "2026-06-01", "", "state"),
			},
			judge: []Judgement{{}, {Contradictions: []int{0}}, {Duplicates: []int{0}, Contradictions: []int{1}}},
			want: map[string]want{
				"kakao": {"2024-01-01", "2026-03-02", "2026-03-05", 1},
				"naver": {"2026-03-02", "2026-06-01", "2026-06-05", 1},
				"back":  {"2026-06-01", "", "", 1},
			},
		},
		{
			name: "a duplicate that adds an end closes the earlier fact",
			facts: []stages.ResolvedFact{
				fact("oos", "lamp", "oos", "IS_OUT_OF_STOCK", "2026-12-01", "2026-12-01", "", "state"),
				fact("oos2", "lamp", "oos", "IS_OUT_OF_STOCK", "2026-12-03", "2026-12-03", "2026-12-25", "state"),
			},
			judge: []Judgement{{}, {Duplicates: []int{0}}},
			want:  map[string]want{"oos": {"2026-12-01", "2026-12-25", "2026-12-03", 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := applyAll(tt.facts, tt.judge)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d facts, want %d: %+v", len(got), len(tt.want), got)
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
		in   stages.ResolvedFact
		want want
	}{
		{"a plan is valid from the day it was said, no invalid_at",
			fact("resign", "me", "co", "PLANS_TO", "2026-03-10", "2026-04-30", "2026-04-30", "plan"),
			want{"2026-03-10", "", "", 0}},
		{"a deadline without a date in its sentence has no invalid_at",
			fact("report", "me", "r", "PLANS_TO", "2026-03-10", "2026-03-13", "", "plan"),
			want{"2026-03-10", "", "", 0}},
		{"a state cannot start after it was stated",
			fact("naver", "me", "naver", "WORKS_AT", "2026-03-10", "2027-01-01", "", "state"),
			want{"2026-03-10", "", "", 0}},
		{"a scheduled state keeps its future start",
			fact("closed", "shop", "x", "IS_CLOSED", "2026-12-01", "2026-12-24", "2026-12-26", "scheduled_state"),
			want{"2026-12-24", "2026-12-26", "", 0}},
		{"an event is an instant, whatever end the model gave",
			fact("trip", "me", "jeju", "VISITED", "2026-03-10", "2026-03-01", "2026-04-01", "event"),
			want{"2026-03-01", "2026-03-01", "", 0}},
		{"an event without a date happened by its reference time",
			fact("trip", "me", "jeju", "VISITED", "2026-03-10", "", "", "event"),
			want{"", "2026-03-10", "", 0}},
		{"a malformed interval loses its valid_at",
			fact("bad", "me", "x", "LIVES_IN", "2026-03-10", "2026-03-01", "2026-02-01", "state"),
			want{"", "2026-02-01", "", 0}},
		{"a clamped start after the stated end is malformed too",
			fact("bad", "me", "x", "LIVES_IN", "2026-03-10", "2027-01-01", "2026-02-01", "state"),
			want{"", "2026-02-01", "", 0}},
		{"an unknown start stays unknown",
			fact("old", "me", "x", "WORKS_AT", "2026-03-10", "", "2020-01-01", "state"),
			want{"", "2020-01-01", "", 0}},
		{"an ongoing state ending on a date keeps its future invalid_at",
			fact("stock", "p", "s", "IS_OUT_OF_STOCK", "2026-12-01", "2026-12-01", "2026-12-25", "state"),
			want{"2026-12-01", "2026-12-25", "", 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Rules{}.Normalize(tt.in)
			check(t, graph.Fact{UUID: got.UUID, ValidAt: got.ValidAt, InvalidAt: got.InvalidAt}, tt.want)
		})
	}
}

func TestVersionLog(t *testing.T) {
	facts := []stages.ResolvedFact{
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
