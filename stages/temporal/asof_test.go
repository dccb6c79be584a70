package temporal

import (
	"testing"
	"time"

	"github.com/tkgraph/backfill/stages/resolve"
)

// The billing audit: the plan changed from Basic to Pro on Mar 1, reported on Mar 15.
func TestAsOfBillingAudit(t *testing.T) {
	facts := []resolve.Fact{
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
			got := AsOf(out, versions, tt.validAt, tt.knownAt)
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

