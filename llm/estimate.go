package llm

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/llm/wire"
)

// CallEstimate is what one call would cost before it is made.
type CallEstimate struct {
	PromptTokens     int     // EstimatePrompt of the rendered messages and schema
	CompletionTokens int     // ExpectedCompletion of the task
	CostUSD          float64 // the two priced with the model's price; 0 when Cached
	Cached           bool    // the cache holds a valid answer: the call would send nothing
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
	e := CallEstimate{PromptTokens: wire.EstimatePrompt(msgs, t.Raw), CompletionTokens: wire.ExpectedCompletion(task)}
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
	e.CostUSD = c.price.Estimate(e.PromptTokens, e.CompletionTokens)
	return e, nil
}
