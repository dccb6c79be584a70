package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// UseBatches makes the client send its requests through provider batches (embedder.mode:
// batch) recorded in store, and returns the Batcher. The batch price is the model's
// (pacing.Price.Batch) and the budget the client's. Call it before the first Embed; batch mode
// needs a cache (the vectors reach the caller through it).
func (c *Client) UseBatches(store batch.Store, opts batch.Options) *batch.Batcher {
	opts.Price = c.price.Batch()
	opts.Budget = c.opts.Budget
	c.batch = batch.New(batch.NewAPI(c.poster), store, embedKind{c}, opts)
	return c.batch
}

// sendBatch embeds one batch of texts through the batcher: batch.ErrPending until its provider
// batch has ended, then the vectors from the cache. A request whose batch retries are used up
// goes online (llm.batch.fallback_online) or fails.
func (c *Client) sendBatch(ctx context.Context, texts []string, body []byte, prompt int, used *pacing.StageUsage) ([][]float32, error) {
	it := batch.Item{Key: batch.Key(wire.EndpointEmbeddings, body, 0), Body: body, Stage: Stage, Task: Task,
		Keys: c.keys(texts), Prompt: prompt}
	out, err := c.batch.Request(ctx, it)
	if err != nil {
		return nil, fmt.Errorf("embedding %d texts: %w", len(texts), err)
	}
	if out.Status == batch.ReqValid {
		vecs := make([][]float32, len(texts))
		for i, k := range it.Keys {
			v, err := c.lookup(ctx, k)
			if err != nil {
				return nil, err
			}
			if v == nil {
				return nil, fmt.Errorf("embedding %d texts: the batch answer is not in the cache", len(texts))
			}
			vecs[i] = v
		}
		return vecs, nil
	}
	c.batch.Consumed(it.Key) // its row records the failure: a later run asks again
	if c.batch.FallbackOnline() {
		c.batch.CountFallback()
		return c.sendOnline(ctx, texts, body, prompt, used)
	}
	if out.Status == batch.ReqInvalid { // a bad answer (transport.IsBadAnswer): it fails the unit, not the run
		return nil, fmt.Errorf("embedding %d texts: %w", len(texts),
			&wire.ValidationError{Task: "embeddings", Attempts: 1, Err: errors.New(out.Detail), Raw: out.Raw})
	}
	return nil, fmt.Errorf("embedding %d texts: %w", len(texts), out.Err())
}

// embedKind is the embeddings client as an batch.Kind.
type embedKind struct{ c *Client }

func (embedKind) Kind() string          { return batch.KindEmbeddings }
func (embedKind) Endpoint() string      { return wire.EndpointEmbeddings }
func (embedKind) ResubmitInvalid() bool { return true }

// Answered reports whether every text of the request has a cached vector.
func (k embedKind) Answered(ctx context.Context, it batch.Item) (bool, error) {
	for _, key := range it.Keys {
		v, err := k.c.lookup(ctx, key)
		if err != nil || v == nil {
			return false, err
		}
	}
	return true, nil
}

// Settle checks an embeddings answer exactly as an online one (one vector per text, the
// client's dimensions) and makes one cache entry per text.
func (k embedKind) Settle(row batch.Request, body []byte) batch.Settled {
	var resp wire.EmbeddingsResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return batch.Settled{Detail: fmt.Sprintf("parsing embeddings response: %v", err)}
	}
	var s batch.Settled
	if resp.Usage != nil {
		s.Usage = *resp.Usage
	}
	vecs, err := k.c.order(resp, len(row.Keys))
	if err != nil {
		s.Detail = fmt.Sprintf("checking embeddings response: %v", err)
		return s
	}
	s.Valid, s.Entries = true, entries(row.Keys, vecs, s.Usage.PromptTokens)
	k.c.count(func(u *Usage) { u.Texts += int64(len(row.Keys)) })
	return s
}

// Count adds a stage's counters to the client's usage (every stage's embeddings count as the
// embedder's).
func (k embedKind) Count(_, _ string, f func(*pacing.StageUsage)) {
	var s pacing.StageUsage
	f(&s)
	k.c.count(func(u *Usage) {
		u.Requests += s.Calls
		u.PromptTokens += s.PromptTokens
		u.Retries += s.Retries
		u.InvalidAnswers += s.InvalidAnswers
		u.CostUSD += s.CostUSD
	})
}
