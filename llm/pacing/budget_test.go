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
