package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestClientCost: the fake server reports 100 prompt and 20 completion tokens per answer.
func TestClientCost(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: `{"name":"n"}`}}}
	mem := cache.NewMemory()
	c := newTestClient(t, f, mem, func(o *Options) { o.Model = "gpt-4o-mini-2024-07-18" })
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
	budget := pacing.NewBudget(1e-4)
	mem := cache.NewMemory()
	c := newTestClient(t, h, mem, func(o *Options) { o.Model = "gpt-4o-mini"; o.Budget = budget; o.Concurrency = 2 })
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
		case errors.Is(err, pacing.ErrBudgetExceeded):
			refused++
			if served[i] != fake.count() {
				t.Errorf("call %d refused while requests were in flight (%d of %d done)", i, served[i], fake.count())
			}
		default:
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if ok == 0 || refused == 0 || ok != fake.count() || mem.Len() != ok {
		t.Fatalf("%d ok, %d refused, %d requests, %d cached", ok, refused, fake.count(), mem.Len())
	}
	if spent := c.Usage().Total.CostUSD; spent > 1e-4 {
		t.Fatalf("spent %v above the limit", spent)
	}
	if err := c.Call(ctx, "s", wire.TaskNameCommunity, wire.NameInput{Summary: "later"}, nil); !errors.Is(err, pacing.ErrBudgetExceeded) {
		t.Fatalf("call after the stop: %v", err)
	}
}

// TestEstimateCachedPrefix: an estimate counts as cached the prefix its prompt shares with the
// previous estimate of the same task, under OpenAI's rule (1,024 tokens or more, whole blocks
// of 128), and prices it at the cached input price.
func TestEstimateCachedPrefix(t *testing.T) {
	f := &fakeServer{replies: []reply{{content: `{"summaries":[]}`}}}
	c := newTestClient(t, f, cache.NewMemory(), func(o *Options) { o.Model = "gpt-4o-mini" })
	long := strings.Repeat("Alice painted the lighthouse at dawn again. ", 150) // about 1,650 tokens
	in := func(last string) wire.SummarizeInput {
		return wire.SummarizeInput{Entities: []wire.EntityFactsIn{{ID: "1", Name: "Alice", Facts: []string{long}}, {ID: "2", Name: last}}}
	}
	first, err := c.Estimate(context.Background(), wire.TaskSummarize, in("Bob"))
	if err != nil || first.CachedPromptTokens != 0 {
		t.Fatalf("first estimate: %+v, %v; want nothing cached", first, err)
	}
	second, err := c.Estimate(context.Background(), wire.TaskSummarize, in("Carol"))
	if err != nil {
		t.Fatal(err)
	}
	if n := second.CachedPromptTokens; n < 1024 || n%128 != 0 || n > second.PromptTokens {
		t.Fatalf("second estimate: %d of %d prompt tokens cached; want the shared prefix in blocks of 128", n, second.PromptTokens)
	}
	p, _ := c.Price()
	if want := p.Tokens(second.PromptTokens, second.CachedPromptTokens, second.CompletionTokens).Total(); !near(second.CostUSD, want) ||
		second.CostUSD >= p.Estimate(second.PromptTokens, second.CompletionTokens) {
		t.Fatalf("second estimate costs %v, want %v (cached tokens at the cached price)", second.CostUSD, want)
	}
	other, err := c.Estimate(context.Background(), wire.TaskNameCommunity, wire.NameInput{Summary: long})
	if err != nil || other.CachedPromptTokens != 0 {
		t.Fatalf("another task's first estimate: %+v, %v; want nothing cached", other, err)
	}
}

// TestEstimateCountsTheSchemaAsPrompt: in the json_schema format the request's schema is prompt
// (OpenAI bills it and caches it before the system message), so an estimate counts its tokens
// and a cached prefix starts with it; a grammar is no prompt on a llama.cpp server.
func TestEstimateCountsTheSchemaAsPrompt(t *testing.T) {
	in := func(text string) wire.ExtractInput {
		return wire.ExtractInput{Episode: wire.EpisodeIn{ReferenceTime: "2024-01-08T10:00:00Z", Source: "message", Speaker: "Alice", Content: text}}
	}
	est := map[string][2]CallEstimate{}
	for _, format := range []string{wire.FormatJSONSchema, wire.FormatGrammar} {
		f := &fakeServer{replies: []reply{{content: validExtract}}}
		c := newTestClient(t, f, cache.NewMemory(), func(o *Options) { o.Model = "gpt-4o-mini"; o.ResponseFormat = format })
		var pair [2]CallEstimate
		for i, text := range []string{"I work at Naver.", "I live in Busan."} {
			e, err := c.Estimate(context.Background(), wire.TaskExtract, in(text))
			if err != nil {
				t.Fatal(err)
			}
			pair[i] = e
		}
		est[format] = pair
	}
	task, _ := wire.LookupTask(wire.TaskExtract)
	js, gr := est[wire.FormatJSONSchema][1], est[wire.FormatGrammar][1]
	if d := js.PromptTokens - gr.PromptTokens; d != wire.EstimateTokens(string(task.Raw)) {
		t.Errorf("json_schema %d against grammar %d prompt tokens: %d more, want the schema's %d", js.PromptTokens, gr.PromptTokens, d,
			wire.EstimateTokens(string(task.Raw)))
	}
	if js.CachedPromptTokens <= gr.CachedPromptTokens || js.CachedPromptTokens%128 != 0 {
		t.Errorf("cached prefix: json_schema %d, grammar %d; want the schema's tokens first in the prefix", js.CachedPromptTokens, gr.CachedPromptTokens)
	}
	t.Logf("json_schema: %+v; grammar: %+v", js, gr)
}
