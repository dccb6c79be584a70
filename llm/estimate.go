package llm

import (
	"context"
	"fmt"
	"sync"

	"github.com/tkgraph/backfill/llm/pacing"

	"github.com/tkgraph/backfill/llm/wire"
)

// CallEstimate is what one call would cost before it is made.
type CallEstimate struct {
	PromptTokens     int // EstimatePrompt of the rendered messages and the schema sent as prompt
	CompletionTokens int // ExpectedCompletion of the task
	// CachedPromptTokens are the prompt tokens a provider's prompt cache would serve
	// (pacing.OpenAIPromptCache) after the previous call of the task this client estimated:
	// the prefix of the schema and messages the two share.
	CachedPromptTokens int
	CostUSD            float64 // the tokens priced with the model's price; 0 when Cached
	Cached             bool    // the cache holds a valid answer: the call would send nothing
}

// lastPrompts remembers the messages of the last call of each task estimated, for
// CallEstimate.CachedPromptTokens; safe for concurrent use.
type lastPrompts struct {
	mu   sync.Mutex
	last map[string]string
}

// shared returns the estimated tokens of the prefix text shares with the last text of task
// (wire.EstimateTokens) and remembers text as the last.
func (l *lastPrompts) shared(task, text string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[string]string{}
	}
	prev := l.last[task]
	l.last[task] = text
	n := 0
	for n < len(prev) && n < len(text) && prev[n] == text[n] {
		n++
	}
	return wire.EstimateTokens(text[:n])
}

// Estimate renders task's prompt for input exactly as Call would and reports its estimated
// size and cost, and whether the cache already answers it. It sends nothing.
func (c *Client) Estimate(ctx context.Context, task string, input any) (CallEstimate, error) {
	t, ok := c.tasks[task]
	if !ok {
		return CallEstimate{}, fmt.Errorf("estimating %s: unknown task", task)
	}
	msgs, err := c.prompts.Render(task, input)
	if err != nil {
		return CallEstimate{}, err
	}
	msgs = t.WithSchema(c.opts.ResponseFormat, msgs)
	schema := t.PromptSchema(c.opts.ResponseFormat)
	e := CallEstimate{PromptTokens: wire.EstimatePrompt(msgs, schema), CompletionTokens: wire.ExpectedCompletion(task)}
	if c.cache != nil {
		entry, hit, err := c.cache.Get(ctx, c.cacheKey(t, msgs))
		if err != nil {
			return CallEstimate{}, fmt.Errorf("reading cache for %s: %w", task, err)
		}
		if hit && t.Schema.Validate(entry.Response) == nil {
			e.Cached = true
			return e, nil
		}
	}
	e.CachedPromptTokens = pacing.OpenAIPromptCache.Cached(c.estimated.shared(task, wire.PromptPrefix(schema, msgs)))
	e.CostUSD = c.price.Tokens(e.PromptTokens, e.CachedPromptTokens, e.CompletionTokens).Total()
	return e, nil
}
