package pacing_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPriceLookup(t *testing.T) {
	p := pacing.DefaultPrices().With(pacing.Prices{"my-model": {InputPerMTok: 1, OutputPerMTok: 2}})
	for _, tt := range []struct {
		model string
		want  float64 // InputPerMTok
		ok    bool
	}{
		{"gpt-4o", 2.50, true},
		{"gpt-4o-mini", 0.15, true},
		{"gpt-4o-mini-2024-07-18", 0.15, true}, // the longest prefix wins over gpt-4o
		{"gpt-4o-2024-11-20", 2.50, true},
		{"openai/gpt-4.1-nano", 0.10, true},
		{"my-model", 1, true},
		{"gpt-4omni", 0, false}, // a prefix needs a "-" after it
		{"llama-3-8b", 0, false},
		{"offline-rules-v1", 0, true},
	} {
		got, ok := p.Lookup(tt.model)
		if ok != tt.ok || got.InputPerMTok != tt.want {
			t.Errorf("Lookup(%q) = %+v, %v; want input %v, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := pacing.DefaultPrices()["my-model"]; ok {
		t.Error("With changed the receiver")
	}
}

func TestPriceCost(t *testing.T) {
	p := pacing.Price{InputPerMTok: 2, CachedInputPerMTok: 0.5, OutputPerMTok: 8}
	for _, tt := range []struct {
		name string
		u    wire.TokenUsage
		want float64
	}{
		{"plain", wire.TokenUsage{PromptTokens: 1_000_000, CompletionTokens: 500_000}, 2 + 4},
		{"cached prompt", wire.TokenUsage{PromptTokens: 1_000_000, PromptTokensDetails: &wire.PromptTokensDetails{CachedTokens: 600_000}}, 0.8 + 0.3},
		{"reasoning is output", wire.TokenUsage{CompletionTokens: 1_000_000,
			CompletionTokensDetails: &wire.CompletionTokensDetails{ReasoningTokens: 900_000}}, 8},
		{"cached beyond prompt", wire.TokenUsage{PromptTokens: 10, PromptTokensDetails: &wire.PromptTokensDetails{CachedTokens: 50}}, 10 * 0.5 / 1e6},
		{"none", wire.TokenUsage{}, 0},
	} {
		if got := p.Cost(tt.u); !near(got, tt.want) {
			t.Errorf("%s: cost %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := (pacing.Price{InputPerMTok: 3, OutputPerMTok: 6}).Cost(wire.TokenUsage{PromptTokens: 1e6,
		PromptTokensDetails: &wire.PromptTokensDetails{CachedTokens: 1e6}}); !near(got, 3) {
		t.Errorf("no cached price: %v, want the input price", got)
	}
}

// TestPriceCosts: a usage priced by kind of token sums to its cost.
func TestPriceCosts(t *testing.T) {
	p := pacing.Price{InputPerMTok: 2, CachedInputPerMTok: 0.5, OutputPerMTok: 8}
	got := p.Costs(wire.TokenUsage{PromptTokens: 1_000_000, CompletionTokens: 250_000,
		PromptTokensDetails: &wire.PromptTokensDetails{CachedTokens: 600_000}})
	if want := (pacing.Cost{Input: 0.8, CachedInput: 0.3, Output: 2}); !near(got.Input, want.Input) ||
		!near(got.CachedInput, want.CachedInput) || !near(got.Output, want.Output) || !near(got.Total(), 3.1) {
		t.Fatalf("costs %+v, want %+v", got, want)
	}
	if b := p.Batch(); b.CachedInputPerMTok != b.InputPerMTok {
		t.Errorf("batch price %+v bills cached tokens apart", b)
	}
	for name, pr := range pacing.DefaultPrices() {
		if pr.Source == "" || (pr.InputPerMTok > 0 && pr.AsOf != pacing.DefaultPricesAsOf) {
			t.Errorf("%s: price without its date or source: %+v", name, pr)
		}
	}
}

// TestPromptCacheRule: OpenAI's rule serves whole blocks of 128 of a shared prefix of at least
// 1,024 tokens.
func TestPromptCacheRule(t *testing.T) {
	r := pacing.OpenAIPromptCache
	for shared, want := range map[int]int{0: 0, 1023: 0, 1024: 1024, 1151: 1024, 1152: 1152, 5000: 4992} {
		if got := r.Cached(shared); got != want {
			t.Errorf("shared %d: cached %d, want %d", shared, got, want)
		}
	}
	if (pacing.PromptCache{}).Cached(5000) != 0 {
		t.Error("a rule without blocks caches")
	}
}

func TestBudget(t *testing.T) {
	b := pacing.NewBudget(1.0)
	steps := []struct {
		reserve, actual float64
		ok              bool
	}{
		{0.4, 0.3, true},
		{0.5, 0.6, true}, // 0.9 spent
		{0.2, 0, false},  // 0.9 + 0.2 > 1: stop
		{0.01, 0, false}, // stopped for good, even if it would fit
	}
	for i, s := range steps {
		err := b.Reserve(s.reserve)
		if (err == nil) != s.ok {
			t.Fatalf("step %d: reserve %v: %v", i, s.reserve, err)
		}
		if err != nil {
			var be *pacing.BudgetError
			if !errors.Is(err, pacing.ErrBudgetExceeded) || !errors.As(err, &be) || !near(be.SpentUSD, 0.9) || transport.IsFatal(err) || transport.IsRetryable(err) {
				t.Fatalf("step %d: error %v", i, err)
			}
			continue
		}
		b.Settle(s.reserve, s.actual)
	}
	if !b.Stopped() {
		t.Fatal("not stopped")
	}
	var none *pacing.Budget
	if none.Reserve(1e9) != nil || pacing.NewBudget(0).Reserve(1e9) != nil || none.Stopped() {
		t.Fatal("an absent or zero budget refused")
	}
}

func TestBudgetWait(t *testing.T) {
	b := pacing.NewBudget(1)
	if err := b.Reserve(0.1); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- b.Wait(context.Background()) }()
	select {
	case <-waited:
		t.Fatal("Wait returned with a reservation open")
	case <-time.After(20 * time.Millisecond):
	}
	b.Settle(0.1, 0.05)
	if err := <-waited; err != nil {
		t.Fatal(err)
	}
}
