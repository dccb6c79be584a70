package stages

import (
	"slices"
	"testing"
)

// TestSteps: every step's upstream is a step that runs before it, and names are unique.
func TestSteps(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Steps {
		if seen[s.Name] {
			t.Fatalf("step %s twice", s.Name)
		}
		if s.Upstream != "" && !seen[s.Upstream] {
			t.Errorf("step %s: upstream %q does not run before it", s.Name, s.Upstream)
		}
		seen[s.Name] = true
	}
	if got := Upstream(Community); got != Embed {
		t.Errorf("Upstream(community) = %q", got)
	}
	if got := Upstream("nothing"); got != "" {
		t.Errorf("Upstream(nothing) = %q", got)
	}
	if got := StepNames(); !slices.Equal(got, []string{Ingest, Extract, Resolve, Temporal, Summarize, Embed, Community, Load}) {
		t.Errorf("StepNames() = %v", got)
	}
}
