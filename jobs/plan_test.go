package jobs

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestPlanCallsNothing plans the demo against a server that counts requests: none may come,
// the counts are exact, and a second plan after a run finds every extraction cached.
func TestPlanCallsNothing(t *testing.T) {
	var calls atomic.Int64
	base := startStub(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Error(w, "plan must not call", http.StatusTeapot)
	}))
	j := stubJob(t, base)
	j.Stages.Extract.Mode = "combined" // one call per episode: the counts are exact before a run
	ctx := context.Background()
	p, err := MakePlan(ctx, j, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Fatalf("plan sent %d requests", calls.Load())
	}
	ex := p.Stages[0]
	if p.Episodes != 56 || p.Groups != 6 || ex.Stage != "extract" || ex.Calls != 56 || !ex.CallsExact || ex.CachedCalls != 0 {
		t.Fatalf("plan %+v, extract %+v", p, ex)
	}
	if ex.PromptTokens < 56*500 || ex.CostUSD <= 0 || p.Price == nil || p.Total.CostUSD < ex.CostUSD || p.Assumptions.Source != "defaults" {
		t.Fatalf("estimates: extract %+v total %+v", ex, p.Total)
	}
	names := []string{}
	for _, s := range p.Stages {
		names = append(names, s.Stage)
	}
	if got := strings.Join(names, ","); got != "extract,resolve,temporal,summarize,embed,community" {
		t.Fatalf("stages %s", got)
	}
	// Sampling renders every 10th prompt and scales.
	ps, err := MakePlan(ctx, j, PlanOptions{Sample: 6})
	if err != nil {
		t.Fatal(err)
	}
	if s := ps.Stages[0]; s.Calls != 56 || s.CallsExact || s.PromptTokens < ex.PromptTokens/2 || s.PromptTokens > ex.PromptTokens*2 {
		t.Fatalf("sampled extract %+v, full %+v", s, ex)
	}
	// After a run, every extraction is cached and the ratios are measured.
	// In two-call mode (the default) both calls of every episode are found in the cache.
	off := demoJob(t)
	rep := run(t, off)
	p2, err := MakePlan(ctx, off, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ex := p2.Stages[0]; ex.Calls != 0 || ex.CachedCalls != rep.LLMByStage["extract"].Calls || !ex.CallsExact || ex.CostUSD != 0 ||
		!strings.HasPrefix(p2.Assumptions.Source, "measured") {
		t.Fatalf("plan after a run: extract %+v, assumptions %+v", ex, p2.Assumptions)
	}
	var b strings.Builder
	p2.WriteTable(&b)
	for _, want := range []string{"extract", "~", "assumptions", "community"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if _, err := json.Marshal(p2); err != nil {
		t.Fatal(err)
	}
}

func TestValidateCost(t *testing.T) {
	for _, tt := range []struct {
		sets []string
		want string
	}{
		{[]string{"limits.max_cost_usd=1"}, ""}, // offline models are priced at 0
		{[]string{"limits.max_cost_usd=-1"}, "negative"},
		{[]string{"limits.max_cost_usd=1", "llm.provider=openai", "llm.base_url=http://x", "llm.model=mystery"}, `needs a price for llm.model "mystery"`},
		{[]string{"limits.max_cost_usd=1", "llm.provider=openai", "llm.base_url=http://x", "llm.model=mystery",
			"llm.prices.mystery.input_per_mtok=1", "llm.prices.mystery.output_per_mtok=2"}, ""},
		{[]string{"llm.prices.x.input_per_mtok=-1"}, "is negative"},
		{[]string{"llm.prices.x.input_per_mtok=1", "llm.prices.x.bogus=2"}, "bogus"},
	} {
		_, err := loadDemo(t, tt.sets...)
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%v: error %v, want %q", tt.sets, err, tt.want)
		}
	}
}
