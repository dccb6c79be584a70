package temporal

import (
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages"
)

// The billing audit: the plan changed from Basic to Pro on Mar 1, reported on Mar 15.
func TestAsOfBillingAudit(t *testing.T) {
	facts := []stages.ResolvedFact{
		fact("basic", "acme", "basic", "HAS_PLAN", "2026-01-05", "2026-01-05", "", "state"),
		fact("pro", "acme", "pro", "HAS_PLAN", "2026-03-15", "2026-03-01", "", "state"),
	}
	out, versions := Apply("g", facts, []Judgement{{}, {Contradictions: []int{0}}})
	tests := []struct {
		name             string
		validAt, knownAt time.Time
		want             string
	}{
		{"valid Mar 10 as known Mar 10", day("2026-03-10"), day("2026-03-10"), "basic"},
		{"valid Mar 10 as known now", day("2026-03-10"), day("2026-11-29"), "pro"},
		{"valid Feb 1 as known now", day("2026-02-01"), day("2026-11-29"), "basic"},
		{"valid Jan 1 as known now", day("2026-01-01"), day("2026-11-29"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := graph.AsOf(out, versions, tt.validAt, tt.knownAt)
			if tt.want == "" {
				if len(got) != 0 {
					t.Fatalf("got %v, want nothing", got)
				}
				return
			}
			if len(got) != 1 || got[0].UUID != tt.want {
				t.Fatalf("got %+v, want only %s", got, tt.want)
			}
		})
	}
}

// TestAsOfUnknownStartAndOrder: an unknown valid_at counts as "since ever"; a fact is absent
// before its first version; results are ordered by valid_at (unknown first), then uuid.
func TestAsOfUnknownStartAndOrder(t *testing.T) {
	facts := []stages.ResolvedFact{
		fact("b-old", "me", "samsung", "WORKS_AT", "2026-01-05", "", "2020-01-01", "state"),
		fact("z-home", "me", "pangyo", "LIVES_IN", "2026-01-06", "", "2026-12-01", "state"),
		fact("a-home2", "you", "seoul", "LIVES_IN", "2026-01-07", "2025-01-01", "", "state"),
		fact("c-home3", "they", "busan", "LIVES_IN", "2026-01-08", "2025-01-01", "", "state"),
	}
	out, versions := applyAll(facts, make([]Judgement, len(facts)))
	tests := []struct {
		name             string
		validAt, knownAt string
		want             []string
	}{
		{"unknown starts first, then by start and uuid", "2026-02-01", "2026-02-01", []string{"z-home", "a-home2", "c-home3"}},
		{"an unknown start is since ever", "2019-06-01", "2026-02-01", []string{"b-old", "z-home"}},
		{"not yet known", "2026-02-01", "2026-01-06", []string{"z-home"}},
		{"nothing known yet", "2026-02-01", "2026-01-01", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range graph.AsOf(out, versions, day(tt.validAt), day(tt.knownAt)) {
				got = append(got, f.UUID)
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
