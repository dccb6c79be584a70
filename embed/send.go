package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// send embeds one batch: one request (with transport retries through the pacer), checked and
// retried a bounded number of times when the answer cannot be read or does not match the
// batch; every vector of a good answer is cached.
func (c *Client) send(ctx context.Context, batch []string) (vecs [][]float32, err error) {
	var used pacing.StageUsage // the call's requests, for its observer
	if c.obs != nil {
		var end func(calls.CallEnd)
		ctx, end = c.obs.Call(ctx, calls.CallInfo{Operation: calls.OperationEmbeddings, Stage: Stage, Task: Task,
			Texts: len(batch), Batch: c.batch != nil})
		defer func() { end(calls.CallEnd{Outcome: calls.CallOutcome(err), Err: err, Usage: used}) }()
	}
	body, err := json.Marshal(wire.EmbeddingsRequest{
		Model: c.opts.Model, Input: batch, Dimensions: max(c.opts.Dimensions, 0), EncodingFormat: "float",
	})
	if err != nil {
		return nil, fmt.Errorf("encoding embeddings request: %w", err)
	}
	prompt := 0
	for _, text := range batch {
		prompt += wire.EstimateTokens(text)
	}
	if c.batch != nil {
		return c.sendBatch(ctx, batch, body, prompt, &used)
	}
	return c.sendOnline(ctx, batch, body, prompt, &used)
}

// sendOnline embeds one batch with online requests (see send), adding them to used.
func (c *Client) sendOnline(ctx context.Context, batch []string, body []byte, prompt int, used *pacing.StageUsage) ([][]float32, error) {
	var invalid error
	for try := 0; try <= c.opts.MaxInvalidRetries; try++ {
		if try > 0 {
			c.count(func(u *Usage) { u.Retries++ })
			used.Retries++
		}
		vecs, tokens, bad, err := c.request(ctx, body, prompt, len(batch), used)
		if err != nil {
			return nil, fmt.Errorf("embedding %d texts: %w", len(batch), err)
		}
		if bad != nil {
			invalid = bad
			c.count(func(u *Usage) { u.InvalidAnswers++ })
			continue
		}
		c.count(func(u *Usage) { u.Texts += int64(len(batch)) })
		if err := c.store(ctx, batch, vecs, tokens); err != nil {
			return nil, err
		}
		return vecs, nil
	}
	// A bad answer (transport.IsBadAnswer): it fails the unit that asked, not the run.
	return nil, fmt.Errorf("embedding %d texts: %w", len(batch),
		&wire.ValidationError{Task: "embeddings", Attempts: c.opts.MaxInvalidRetries + 1, Err: invalid})
}

// request makes one request (adding it to used) and reads its answer; bad is an answer that
// cannot be used.
func (c *Client) request(ctx context.Context, body []byte, prompt, n int, used *pacing.StageUsage) (vecs [][]float32, tokens int, bad, err error) {
	track := func(delta int) {
		if delta > 0 {
			c.count(func(u *Usage) { u.Requests++ })
			used.Calls++ // Post calls Track from this goroutine
		}
	}
	req := transport.Request{Path: "/embeddings", Body: body, PromptTokens: prompt, Track: track}
	if c.obs != nil {
		req.Waited = func(d time.Duration) { c.obs.Waited(Stage, Task, d) }
	}
	res, err := c.poster.Post(ctx, req)
	c.count(func(u *Usage) {
		u.Retries += int64(res.Retries)
		u.PromptTokens += int64(res.Usage.PromptTokens)
		u.CostUSD += res.CostUSD
	})
	used.Retries += int64(res.Retries)
	used.Add(res.Usage, pacing.Cost{Input: res.CostUSD})
	if err != nil {
		return nil, 0, nil, err
	}
	var resp wire.EmbeddingsResponse
	if err := json.Unmarshal(res.Body, &resp); err != nil {
		return nil, 0, fmt.Errorf("parsing embeddings response: %w", err), nil
	}
	vecs, err = c.order(resp, n)
	if err != nil {
		return nil, 0, fmt.Errorf("checking embeddings response: %w", err), nil
	}
	return vecs, res.Usage.PromptTokens, nil, nil
}

// count applies f to the usage counters under the lock; the observer receives the change (f
// applied to zero counters) as the run report counts it: under the embed stage (Stage). f only
// adds to the counters.
func (c *Client) count(f func(*Usage)) {
	c.mu.Lock()
	f(&c.usage)
	c.mu.Unlock()
	if c.obs != nil {
		var d Usage
		f(&d)
		c.obs.Counted(Stage, Task, d.StageUsage())
	}
}

// store caches every vector of a batch, with the batch's tokens spread over its texts.
func (c *Client) store(ctx context.Context, batch []string, vecs [][]float32, tokens int) error {
	if c.cache == nil {
		return nil
	}
	for _, e := range entries(c.keys(batch), vecs, tokens) {
		// Stored even when the run is being cancelled: the vector is paid for.
		if err := c.cache.Put(context.WithoutCancel(ctx), e.Key, e.Entry); err != nil {
			return fmt.Errorf("writing embedding cache: %w", err)
		}
	}
	return nil
}

// keys are the cache keys of texts.
func (c *Client) keys(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = CacheKey(c.opts.Model, c.opts.Dimensions, t)
	}
	return out
}

// entries are the cache entries of vectors under keys, with tokens spread over them.
func entries(keys []string, vecs [][]float32, tokens int) []cache.Keyed {
	out := make([]cache.Keyed, len(keys))
	for j, k := range keys {
		share := tokens / len(keys)
		if j == 0 {
			share += tokens % len(keys)
		}
		out[j] = cache.Keyed{Key: k, Entry: cache.Entry{Namespace: "embed", Response: packVector(vecs[j]), PromptTokens: share}}
	}
	return out
}

// order puts the vectors of resp in input order and checks there is exactly one per text and
// that all have the client's dimensions (learning them from the first vector if unset).
func (c *Client) order(resp wire.EmbeddingsResponse, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, fmt.Errorf("%d vectors for %d texts", len(resp.Data), n)
	}
	vecs := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
			return nil, fmt.Errorf("bad or repeated index %d", d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("empty vector at index %d", d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dims == 0 {
		c.dims = len(vecs[0])
	}
	for i, v := range vecs {
		if len(v) != c.dims {
			return nil, fmt.Errorf("vector %d has %d dimensions, want %d", i, len(v), c.dims)
		}
	}
	return vecs, nil
}
