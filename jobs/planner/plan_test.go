package planner

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/stages"
)

// stagePlan returns the estimate of the plan's stage named name.
func stagePlan(t *testing.T, p *Plan, name string) stages.Estimate {
	t.Helper()
	for _, s := range p.Stages {
		if s.Stage == name {
			return s
		}
	}
	t.Fatalf("the plan has no stage %s", name)
	return stages.Estimate{}
}

// TestPlanCallsNothing plans the demo against a server that counts requests: none may come, the
// counts are exact, and a plan after a run finds every unit done: no call in any stage.
func TestPlanCallsNothing(t *testing.T) {
	var calls atomic.Int64
	base := startStub(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "plan must not call", http.StatusTeapot)
	}))
	j := stubJob(t, base)
	j.Stages.Extract.Mode = "combined" // one call per episode asked: the counts are exact before a run
	ctx := context.Background()
	p := plan(t, j)
	if calls.Load() != 0 {
		t.Fatalf("plan sent %d requests", calls.Load())
	}
	ex := stagePlan(t, p, stages.Extract)
	// The demo's 56 episodes hold 4 chit-chat messages ("Wow. What will you do after that?"), not asked.
	if p.Episodes != 56 || p.Groups != 6 || ex.Calls != 52 || !ex.CallsExact || ex.CachedCalls != 0 || ex.Done != 0 ||
		!strings.Contains(ex.Basis, "chit-chat messages ask nothing (4 of 56 rendered)") {
		t.Fatalf("plan %+v, extract %+v", p, ex)
	}
	if ex.PromptTokens < 56*500 || ex.CostUSD <= 0 || p.Price == nil || p.Total.CostUSD < ex.CostUSD ||
		p.Assumptions.Source != "defaults (the checkpoint holds no graph to measure)" {
		t.Fatalf("estimates: extract %+v total %+v", ex, p.Total)
	}
	names := []string{}
	for _, s := range p.Stages {
		names = append(names, s.Stage)
	}
	if got := strings.Join(names, ","); got != strings.Join(stages.StepNames()[:7], ",") {
		t.Fatalf("stages %s", got)
	}
	// Sampling renders every 10th prompt and scales.
	ps, err := Make(ctx, j, Options{Sample: 6})
	if err != nil {
		t.Fatal(err)
	}
	if s := stagePlan(t, ps, stages.Extract); s.Calls < 40 || s.Calls > 56 || s.CallsExact || s.PromptTokens < ex.PromptTokens/2 || s.PromptTokens > ex.PromptTokens*2 {
		t.Fatalf("sampled extract %+v, full %+v", s, ex)
	}
	// After a run every unit is done (a run would skip it): no call in any stage, and the ratios
	// are measured.
	off := demoJob(t)
	run(t, off)
	p2 := plan(t, off)
	for _, s := range p2.Stages {
		if s.Stage != stages.Ingest && (s.Done != s.Units || s.Calls != 0 || !s.CallsExact || s.CostUSD != 0) {
			t.Errorf("plan after a run: %+v, want every unit done and no call", s)
		}
	}
	if p2.Total.Calls != 0 || !p2.Total.CallsExact || !strings.HasPrefix(p2.Assumptions.Source, "measured") {
		t.Fatalf("plan after a run: total %+v, assumptions %+v", p2.Total, p2.Assumptions)
	}
	var b strings.Builder
	p2.WriteTable(&b)
	for _, want := range []string{"extract", "done", "assumptions", "community",
		"units done (their fingerprint on record in the checkpoint: a run skips them, they cost nothing): all of extract, resolve, temporal, summarize, embed and community"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := json.Marshal(p2); err != nil {
		t.Fatal(err)
	}
}

// TestPlanSaysWhereItsRatiosComeFrom: the plan's assumptions line names their origin. After a
// run of the same job they are measured on the checkpoint's graph, resolved under the job's
// settings; with another model the graph was built under other settings, so the plan uses the
// defaults and a note gives the graph's ratios it did not use (issue 36, item 5).
func TestPlanSaysWhereItsRatiosComeFrom(t *testing.T) {
	j := demoJob(t)
	run(t, j)
	other := *j
	other.LLM.Model = "another-model"
	for _, c := range []struct {
		name, line, note string
		job              *pipeline.Job
	}{
		{"the same job", `(?m)^assumptions +measured on the checkpoint's graph \(56 episodes\), resolved under this job's settings: \d+\.\d\d entities`, "", j},
		{"another model", `(?m)^assumptions +defaults \(the checkpoint's graph was built under other settings\): 1\.20 entities and 1\.50 facts per episode`,
			`(?m)^note +the checkpoint's graph \(56 episodes\) was built under other settings \(another model or options: none of its groups is resolved as this job would resolve it\): its \d+\.\d\d entities and \d+\.\d\d facts per episode are not used$`,
			&other},
	} {
		var b strings.Builder
		plan(t, c.job).WriteTable(&b)
		if !regexp.MustCompile(c.line).MatchString(b.String()) || (c.note != "" && !regexp.MustCompile(c.note).MatchString(b.String())) {
			t.Errorf("plan of %s: the assumptions do not say where they come from:\n%s", c.name, b.String())
		}
	}
}
