package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestPriceLookup(t *testing.T) {
	p := DefaultPrices().With(Prices{"my-model": {InputPerMTok: 1, OutputPerMTok: 2}})
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
	if _, ok := DefaultPrices()["my-model"]; ok {
		t.Error("With changed the receiver")
	}
}

func TestPriceCost(t *testing.T) {
	p := Price{InputPerMTok: 2, CachedInputPerMTok: 0.5, OutputPerMTok: 8}
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
	if got := (Price{InputPerMTok: 3, OutputPerMTok: 6}).Cost(wire.TokenUsage{PromptTokens: 1e6,
		PromptTokensDetails: &wire.PromptTokensDetails{CachedTokens: 1e6}}); !near(got, 3) {
		t.Errorf("no cached price: %v, want the input price", got)
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(1.0)
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
			var be *BudgetError
			if !errors.Is(err, ErrBudgetExceeded) || !errors.As(err, &be) || !near(be.SpentUSD, 0.9) || IsFatal(err) || IsRetryable(err) {
				t.Fatalf("step %d: error %v", i, err)
			}
			continue
		}
		b.Settle(s.reserve, s.actual)
	}
	if !b.Stopped() {
		t.Fatal("not stopped")
	}
	var none *Budget
	if none.Reserve(1e9) != nil || NewBudget(0).Reserve(1e9) != nil || none.Stopped() {
		t.Fatal("an absent or zero budget refused")
	}
}

// TestClientCost: the fake server reports 100 prompt and 20 completion tokens per answer.
func TestClientCost(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	cache := NewMemoryCache()
	c := newTestClient(t, f, cache, func(o *Options) { o.Model = "gpt-4o-mini-2024-07-18" })
	ctx := context.Background()
	for range 2 { // the second call is a cache hit and costs nothing
		if err := c.Call(ctx, "community", wire.TaskNameCommunity, wire.NameInput{Summary: "x"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	want := (100*0.15 + 20*0.60) / 1e6
	u := c.Usage()
	if !near(u.Total.CostUSD, want) || !near(u.Stages["community"].CostUSD, want) || u.Total.CacheHits != 1 || u.Total.ReasoningTokens != 5 {
		t.Fatalf("usage %+v, want cost %v", u.Total, want)
	}
	if p, ok := c.Price(); !ok || p.OutputPerMTok != 0.60 {
		t.Fatalf("price %+v %v", p, ok)
	}
	e, err := c.Estimate(ctx, wire.TaskNameCommunity, wire.NameInput{Summary: "x"})
	if err != nil || !e.Cached || e.CostUSD != 0 || e.PromptTokens == 0 {
		t.Fatalf("estimate of a cached call: %+v %v", e, err)
	}
	e, err = c.Estimate(ctx, wire.TaskNameCommunity, wire.NameInput{Summary: "y"})
	if err != nil || e.Cached || e.CostUSD <= 0 || e.CompletionTokens != wire.ExpectedCompletion(wire.TaskNameCommunity) {
		t.Fatalf("estimate of a new call: %+v %v", e, err)
	}
	if f.count() != 1 {
		t.Fatalf("estimates sent requests: %d", f.count())
	}
}

// TestBudgetStopDrainsInFlight: once the budget refuses a call, the refused call returns only
// after the calls in flight have finished, and every later call is refused without a request.
func TestBudgetStopDrainsInFlight(t *testing.T) {
	var mu sync.Mutex
	done := 0
	fake := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(50 * time.Millisecond)
		fake.ServeHTTP(w, r)
		mu.Lock()
		done++
		mu.Unlock()
	})
	// Each call costs (100·0.15 + 20·0.60)/1e6 = 2.7e-5 and is estimated a little above that.
	budget := NewBudget(1e-4)
	cache := NewMemoryCache()
	c := newTestClient(t, h, cache, func(o *Options) { o.Model = "gpt-4o-mini"; o.Budget = budget; o.Concurrency = 2 })
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 6)
	served := make([]int, 6)
	for i := range errs {
		wg.Go(func() {
			errs[i] = c.Call(ctx, "s", wire.TaskNameCommunity, wire.NameInput{Summary: fmt.Sprint(i)}, nil)
			mu.Lock()
			served[i] = done
			mu.Unlock()
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrBudgetExceeded):
			refused++
			if served[i] != fake.count() {
				t.Errorf("call %d refused while requests were in flight (%d of %d done)", i, served[i], fake.count())
			}
		default:
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if ok == 0 || refused == 0 || ok != fake.count() || cache.Len() != ok {
		t.Fatalf("%d ok, %d refused, %d requests, %d cached", ok, refused, fake.count(), cache.Len())
	}
	if spent := c.Usage().Total.CostUSD; spent > 1e-4 {
		t.Fatalf("spent %v above the limit", spent)
	}
	if err := c.Call(ctx, "s", wire.TaskNameCommunity, wire.NameInput{Summary: "later"}, nil); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("call after the stop: %v", err)
	}
}

func TestBudgetWait(t *testing.T) {
	b := NewBudget(1)
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
