package temporal

import (
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// versionsOf returns the versions of one fact, in order.
func versionsOf(vs []graph.FactVersion, id string) []graph.FactVersion {
	var out []graph.FactVersion
	for _, v := range vs {
		if v.FactUUID == id {
			out = append(out, v)
		}
	}
	return out
}

// TestVersionLogLateHeard: under record_time: ingest a fact heard late (coupang) re-closes kakao
// earlier; the log keeps what was known in between.
func TestVersionLogLateHeard(t *testing.T) {
	facts := []stages.ResolvedFact{
		fact("kakao", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
		heard(fact("coupang", "me", "coupang", "WORKS_AT", "2026-02-01", "2025-06-01", "", "state"), "2026-04-01"),
		fact("naver", "me", "naver", "WORKS_AT", "2026-03-05", "2026-03-02", "", "state"),
	}
	out, vs := applyAll(facts, []Judgement{{}, {Contradictions: []int{0}}, {Contradictions: []int{0, 1}}})
	type row struct{ rec, invalid, expired, episode, reason string }
	wants := map[string][]row{
		"kakao": {{"2026-01-10", "", "", "ep-kakao", graph.ReasonCreated},
			{"2026-03-05", "2026-03-02", "2026-03-05", "ep-naver", graph.ReasonClosedByNewer},
			{"2026-04-01", "2025-06-01", "2026-03-05", "ep-coupang", graph.ReasonClosedByNewer}},
		"coupang": {{"2026-04-01", "2026-03-02", "2026-04-01", "ep-coupang", graph.ReasonClosedByLaterStart}},
		"naver":   {{"2026-03-05", "", "", "ep-naver", graph.ReasonCreated}},
	}
	for id, want := range wants {
		got := versionsOf(vs, id)
		if len(got) != len(want) {
			t.Fatalf("%s: %d versions, want %d: %+v", id, len(got), len(want), got)
		}
		for i, w := range want {
			g := got[i]
			if g.Seq != i || !g.RecordTime.Equal(day(w.rec)) || !graph.SameTime(g.InvalidAt, dp(w.invalid)) ||
				!graph.SameTime(g.ExpiredAt, dp(w.expired)) || g.EpisodeUUID != w.episode || g.Reason != w.reason {
				t.Errorf("%s version %d = %+v, want %+v", id, i, g, w)
			}
		}
	}
	asOf := []struct{ valid, known, want string }{
		{"2025-12-01", "2026-03-10", "kakao"},   // before coupang was heard
		{"2025-12-01", "2026-04-02", "coupang"}, // after
		{"2026-03-03", "2026-03-04", "kakao"},   // before naver was heard
		{"2026-03-03", "2026-03-06", "naver"},
	}
	for _, q := range asOf {
		got := graph.AsOf(out, vs, day(q.valid), day(q.known))
		if len(got) != 1 || got[0].UUID != q.want {
			t.Errorf("valid %s known %s: got %v, want %s", q.valid, q.known, got, q.want)
		}
	}
}

// TestPoisonedLateStart: a statement claiming a later start for a contradicting fact cannot close
// the true fact at any time before the statement was made, in the final state or in any version.
func TestPoisonedLateStart(t *testing.T) {
	const said = "2026-02-01"
	tests := []struct {
		name, kind, valid, invalid string
		wantValid                  string
	}{
		{"state claiming a future start", "state", "2027-01-01", "", said},
		{"event claiming a future date", "event", "2026-12-24", "", said},
		{"state claiming a future interval", "state", "2026-06-01", "2026-09-01", said},
		{"plan", "plan", "2026-06-01", "", said},
		{"scheduled state keeps its start, after the statement", "scheduled_state", "2026-06-01", "", "2026-06-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := []stages.ResolvedFact{
				fact("true", "me", "kakao", "WORKS_AT", "2026-01-10", "2024-01-01", "", "state"),
				fact("poison", "me", "evil", "WORKS_AT", said, tt.valid, tt.invalid, tt.kind),
			}
			out, vs := applyAll(facts, []Judgement{{}, {Contradictions: []int{0}}})
			for _, v := range versionsOf(vs, "true") {
				if v.InvalidAt != nil && v.InvalidAt.Before(day(said)) {
					t.Errorf("true fact closed at %v (version %d), before the poisoned statement", v.InvalidAt, v.Seq)
				}
				if v.InvalidAt != nil && v.RecordTime.Before(day(said)) {
					t.Errorf("true fact known closed at %v, before the poisoned statement", v.RecordTime)
				}
			}
			for _, f := range out {
				if f.UUID == "poison" && !graph.SameTime(f.ValidAt, dp(tt.wantValid)) {
					t.Errorf("poisoned fact valid_at = %v, want %s", f.ValidAt, tt.wantValid)
				}
				if f.UUID == "true" && !graph.SameTime(f.InvalidAt, dp(tt.wantValid)) {
					t.Errorf("true fact invalid_at = %v, want %s", f.InvalidAt, tt.wantValid)
				}
			}
			if got := graph.AsOf(out, vs, day("2025-06-01"), day("2026-12-31")); len(got) != 1 || got[0].UUID != "true" {
				t.Errorf("as of mid-2025: %v, want the true fact", got)
			}
		})
	}
}
