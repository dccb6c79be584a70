package llm

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// UseBatches makes the client send its requests through provider batches (llm.mode: batch)
// recorded in store, and returns the Batcher (the stage runner flushes it and waits for it).
// The batch price is the model's (Price.Batch) and the budget the client's. Call it before the
// first Call. Batch mode needs a cache: valid answers reach the caller through it.
func (c *Client) UseBatches(store batch.Store, opts batch.Options) *batch.Batcher {
	opts.Price = c.price.Batch()
	opts.Budget = c.opts.Budget
	c.batch = batch.New(batch.NewAPI(c.poster), store, chatKind{c}, opts)
	return c.batch
}

// ask sends request number attempt (from 0) of a call: online, or in batch mode through the
// batcher (which returns ErrPending until the request's batch has ended); walked collects the
// batch requests the call went through whose rows the store keeps (invalid answers, failures).
func (c *Client) ask(ctx context.Context, stage string, t *wire.Task, key string, msgs []wire.Message, maxTokens int, attempt int,
	walked *[]string) ([]byte, answerMeta, error, error) {
	if c.batch == nil {
		return c.complete(ctx, stage, t, msgs, maxTokens)
	}
	body, err := c.requestBody(t, msgs, maxTokens)
	if err != nil {
		return nil, answerMeta{}, nil, err
	}
	it := batch.Item{Key: batch.Key(wire.EndpointChat, body, attempt), Body: body, Stage: stage, Task: t.Name, Keys: []string{key},
		Prompt: wire.EstimatePrompt(msgs, t.PromptSchema(c.opts.ResponseFormat)), Completion: wire.ExpectedCompletion(t.Name), Retry: attempt > 0}
	out, err := c.batch.Request(ctx, it)
	if err != nil {
		return nil, answerMeta{}, nil, err
	}
	if out.Status != batch.ReqValid { // a valid answer's row is gone already
		*walked = append(*walked, it.Key)
	}
	meta := answerMeta{batched: true}
	switch {
	case out.Status == batch.ReqValid:
		if c.cache == nil {
			return nil, meta, nil, fmt.Errorf("calling %s in batch mode: the client has no cache to receive the answer", t.Name)
		}
		e, hit, err := c.cache.Get(ctx, key)
		if err != nil {
			return nil, meta, nil, fmt.Errorf("reading cache for %s: %w", t.Name, err)
		}
		if !hit {
			return nil, meta, nil, fmt.Errorf("reading cache for %s: the batch answer is not in the cache", t.Name)
		}
		meta.usage = wire.TokenUsage{PromptTokens: e.PromptTokens, CompletionTokens: e.CompletionTokens}
		return e.Response, meta, nil, nil
	case out.Status == batch.ReqInvalid:
		meta.finish = out.Finish
		return out.Raw, meta, recordedError(out.Detail), nil
	case c.batch.FallbackOnline():
		c.batch.CountFallback()
		return c.complete(ctx, stage, t, msgs, maxTokens)
	}
	return nil, meta, nil, out.Err()
}

// consumed hands the batch requests of a finished call to the batcher (Batcher.Consumed).
func (c *Client) consumed(walked []string) {
	if c.batch != nil && len(walked) > 0 {
		c.batch.Consumed(walked...)
	}
}

// recordedError is the validation error of an answer as the batcher recorded it: the same text
// on every run, so a retry with feedback is the same request (and the same batch key) again.
type recordedError string

func (e recordedError) Error() string { return string(e) }

// chatKind is the chat client as a BatchKind.
type chatKind struct{ c *Client }

func (chatKind) Kind() string          { return batch.KindChat }
func (chatKind) Endpoint() string      { return wire.EndpointChat }
func (chatKind) ResubmitInvalid() bool { return false }

// Answered reports whether the cache holds a valid answer under the request's cache key.
func (k chatKind) Answered(ctx context.Context, it batch.Item) (bool, error) {
	t, ok := k.c.tasks[it.Task]
	if !ok || k.c.cache == nil || len(it.Keys) != 1 {
		return false, nil
	}
	e, hit, err := k.c.cache.Get(ctx, it.Keys[0])
	if err != nil {
		return false, fmt.Errorf("reading cache for %s: %w", it.Task, err)
	}
	return hit && t.Schema.Validate(e.Response) == nil, nil
}

// Settle validates a chat answer exactly as an online answer is validated (answerText,
// checkAnswer); a valid one goes into the cache under the request's cache key, in the stage's
// namespace, with its usage.
func (k chatKind) Settle(row batch.Request, body []byte) batch.Settled {
	var resp wire.ChatResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return batch.Settled{Detail: fmt.Sprintf("parsing chat response: %v", err)}
	}
	var s batch.Settled
	if resp.Usage != nil {
		s.Usage = *resp.Usage
	}
	if len(resp.Choices) > 0 {
		s.Finish = resp.Choices[0].FinishReason
	}
	t, ok := k.c.tasks[row.Task]
	if !ok || len(row.Keys) != 1 {
		s.Detail = fmt.Sprintf("a batch request of unknown task %q", row.Task)
		return s
	}
	answer, bad := answerText(resp)
	if bad == nil {
		bad = checkAnswer(t, answer)
	}
	if bad != nil {
		s.Detail, s.Raw = bad.Error(), clip(answer, maxRawAnswer)
		return s
	}
	s.Valid = true
	s.Entries = []cache.Keyed{{Key: row.Keys[0], Entry: cache.Entry{Namespace: row.Stage, Response: answer,
		PromptTokens: s.Usage.PromptTokens, CompletionTokens: s.Usage.CompletionTokens}}}
	return s
}

// Count applies f to the stage's counters, for task.
func (k chatKind) Count(stage, task string, f func(*pacing.StageUsage)) {
	k.c.meter.update(stage, task, f)
}
