package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/tkgraph/backfill/stages/community"
	"github.com/tkgraph/backfill/stages/summarize"
)

// TestPlanFollowsOptions plans the demo with one stage option changed at a time: the stages the
// option sizes change their estimate in the expected direction, the others do not move, and
// setting an option to the stage's exported default plans exactly what leaving it unset does
// (the plan reads the stage's defaults, it keeps no copy of its own).
func TestPlanFollowsOptions(t *testing.T) {
	ctx := context.Background()
	plan := func(sets ...string) map[string]int {
		t.Helper()
		p, err := Make(ctx, demoJob(t, sets...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		calls := map[string]int{}
		for _, s := range p.Stages {
			calls[s.Stage] = s.Calls
		}
		return calls
	}
	base := plan()
	if base["community"] == 0 || base["summarize"] == 0 || base["resolve"] == 0 {
		t.Fatalf("the demo's default plan has no calls to compare: %v", base)
	}
	for _, tt := range []struct {
		set   string
		moved map[string]string // stage: "less", "more" or "zero"; the other stages stay
	}{
		{"stages.community.max_summarized=2", map[string]string{"community": "less"}},
		{fmt.Sprintf("stages.community.max_summarized=%d", community.DefaultStageMaxSummarized), nil},
		// No community: no merge, no name, and no community summary to embed.
		{"stages.community.min_size=1000", map[string]string{"community": "zero", "embed": "less"}},
		{"stages.summarize.batch_size=1", map[string]string{"summarize": "more"}},
		{fmt.Sprintf("stages.summarize.batch_size=%d", summarize.DefaultBatchSize), nil},
		{"stages.resolve.llm=off", map[string]string{"resolve": "zero"}},
	} {
		t.Run(tt.set, func(t *testing.T) {
			got := plan(tt.set)
			for stage, n := range base {
				if change, ok := tt.moved[stage]; ok {
					switch g := got[stage]; change {
					case "less":
						if g >= n {
							t.Errorf("%s: %d calls, want fewer than %d", stage, g, n)
						}
					case "more":
						if g <= n {
							t.Errorf("%s: %d calls, want more than %d", stage, g, n)
						}
					case "zero":
						if g != 0 {
							t.Errorf("%s: %d calls, want 0", stage, g)
						}
					}
					continue
				}
				if got[stage] != n {
					t.Errorf("%s: %d calls, want %d as with the defaults", stage, got[stage], n)
				}
			}
		})
	}
}
