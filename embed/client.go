package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tkgraph/backfill/internal/workpool"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
)

// Defaults of Options.
const (
	DefaultBatchSize         = 256
	DefaultConcurrency       = 4
	DefaultMaxInvalidRetries = 2
)

// Options configure a Client. Zero values take the defaults.
type Options struct {
	BaseURL     string // requests go to BaseURL + "/embeddings"
	Model       string
	APIKey      string
	Dimensions  int // requested vector size, sent as "dimensions" when > 0; else learnt from answers
	BatchSize   int // texts per request (DefaultBatchSize)
	Concurrency int // batches in flight (DefaultConcurrency); also bounds the own pacer
	MaxAttempts int // HTTP attempts per request (transport.DefaultMaxAttempts)
	// MaxInvalidRetries bounds the extra requests made for an answer that cannot be read or
	// does not match the batch (DefaultMaxInvalidRetries when 0; negative means none).
	MaxInvalidRetries int
	Timeout           time.Duration
	BackoffBase       time.Duration
	BackoffMax        time.Duration
	Pacer             *pacing.Pacer  // the run's shared pacer; nil: an own one of Concurrency slots
	Budget            *pacing.Budget // the run's shared budget; nil: no limit
	Prices            pacing.Prices  // price table (pacing.DefaultPrices when nil)
	Log               *slog.Logger   // retries at debug level
}

// Usage counts the work of a Client.
type Usage struct {
	Requests       int64   `json:"requests"` // HTTP requests sent, retries included
	Texts          int64   `json:"texts"`    // texts sent (after the cache and de-duplication)
	CacheHits      int64   `json:"cache_hits"`
	PromptTokens   int64   `json:"prompt_tokens"`
	Retries        int64   `json:"retries"`         // requests beyond the first of a batch (transient or invalid)
	InvalidAnswers int64   `json:"invalid_answers"` // answers that could not be read or did not match
	MaxInFlight    int64   `json:"max_in_flight"`   // peak requests in flight on the client's pacer
	CostUSD        float64 `json:"cost_usd"`
}

// Client is an OpenAI-compatible embeddings client. It is safe for concurrent use.
type Client struct {
	opts   Options
	cache  Cache
	pacer  *pacing.Pacer
	poster *transport.Poster

	price pacing.Price
	batch *batch.Batcher // nil: online (UseBatches)
	obs   calls.Observer // nil: none (Observe)

	mu    sync.Mutex
	usage Usage
	dims  int // Options.Dimensions, or the size of the first vector received
}

var _ Embedder = (*Client)(nil)

// NewClient returns a client; hc nil means http.DefaultClient, cache nil disables caching.
func NewClient(opts Options, hc *http.Client, cache Cache) *Client {
	if opts.BatchSize < 1 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.MaxInvalidRetries == 0 {
		opts.MaxInvalidRetries = DefaultMaxInvalidRetries
	}
	opts.MaxInvalidRetries = max(opts.MaxInvalidRetries, 0)
	pacer := opts.Pacer
	if pacer == nil {
		pacer = pacing.NewGate(opts.Concurrency)
	}
	if opts.Prices == nil {
		opts.Prices = pacing.DefaultPrices()
	}
	price, _ := opts.Prices.Lookup(opts.Model)
	return &Client{
		opts: opts, cache: cache, pacer: pacer, dims: max(opts.Dimensions, 0), price: price,
		poster: &transport.Poster{
			BaseURL: opts.BaseURL, APIKey: opts.APIKey, HTTP: hc, Pacer: pacer, Budget: opts.Budget, Price: price,
			MaxAttempts: opts.MaxAttempts, Timeout: opts.Timeout,
			BackoffBase: opts.BackoffBase, BackoffMax: opts.BackoffMax, Log: opts.Log,
		},
	}
}

// Pacer is the pacer the client's requests pass.
func (c *Client) Pacer() *pacing.Pacer { return c.pacer }

// Model is the embedding model.
func (c *Client) Model() string { return c.opts.Model }

// Dimensions is the vector size: Options.Dimensions, or, when that is 0, the size of the first
// vector received (0 before any).
func (c *Client) Dimensions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dims
}

// Usage returns a snapshot of the counters.
func (c *Client) Usage() Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.usage
	u.MaxInFlight = int64(c.pacer.Peak())
	return u
}

// Embed returns one vector per text, in input order. Cached texts are not sent; a text that
// occurs several times is sent once. Empty texts are an error (the API rejects them).
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	where := map[string][]int{} // text → its positions in texts
	var todo []string           // distinct texts to send, in first-seen order
	for i, text := range texts {
		if text == "" {
			return nil, fmt.Errorf("embedding text %d: empty text", i)
		}
		if _, seen := where[text]; !seen {
			v, err := c.cached(ctx, text)
			if err != nil {
				return nil, err
			}
			if v != nil {
				out[i] = v
				continue
			}
			todo = append(todo, text)
		}
		where[text] = append(where[text], i)
	}
	var batches [][]string
	for start := 0; start < len(todo); start += c.opts.BatchSize {
		batches = append(batches, todo[start:min(start+c.opts.BatchSize, len(todo))])
	}
	err := c.run(ctx, batches, func(batch []string, vecs [][]float32) {
		for j, text := range batch {
			for _, i := range where[text] {
				out[i] = vecs[j]
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// cached returns the cached vector of text, or nil on a miss, and counts a hit (not when ctx
// replays a batch wave, batch.Replaying).
func (c *Client) cached(ctx context.Context, text string) ([]float32, error) {
	v, err := c.lookup(ctx, CacheKey(c.opts.Model, c.opts.Dimensions, text))
	if v != nil && !batch.IsReplay(ctx) {
		c.count(func(u *Usage) { u.CacheHits++ })
	}
	return v, err
}

// lookup returns the cached vector under key, or nil on a miss or a vector of other dimensions.
func (c *Client) lookup(ctx context.Context, key string) ([]float32, error) {
	if c.cache == nil {
		return nil, nil
	}
	e, ok, err := c.cache.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("reading embedding cache: %w", err)
	}
	v, good := unpackVector(e.Response)
	if !ok || !good {
		return nil, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dims == 0 {
		c.dims = len(v)
	}
	if len(v) != c.dims {
		return nil, nil
	}
	return v, nil
}

// run sends the batches with at most Concurrency at a time and hands each answer to fill (under
// no lock: batches write disjoint positions). The first error cancels the rest, except
// batch.ErrPending (batch mode: the texts wait in a provider batch): the other batches are still
// queued, and run returns it at the end.
func (c *Client) run(ctx context.Context, batches [][]string, fill func([]string, [][]float32)) error {
	p := workpool.New(ctx, c.opts.Concurrency)
	var pending atomic.Bool
	for _, b := range batches {
		p.Go(func(ctx context.Context) error {
			vecs, err := c.send(ctx, b)
			if errors.Is(err, batch.ErrPending) {
				pending.Store(true)
				return nil
			}
			if err != nil {
				return err
			}
			fill(b, vecs)
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return err
	}
	if pending.Load() {
		return fmt.Errorf("embedding %d batches: %w", len(batches), batch.ErrPending)
	}
	return nil
}

// Observe makes o watch the client's requests and usage (calls.Observer; nil: none). Call it
// before the first Embed.
func (c *Client) Observe(o calls.Observer) { c.obs = o }

// StageUsage is u as the LLM usage counts it (pacing.StageUsage).
func (u Usage) StageUsage() pacing.StageUsage {
	return pacing.StageUsage{Calls: u.Requests, CacheHits: u.CacheHits, PromptTokens: u.PromptTokens,
		Retries: u.Retries, InvalidAnswers: u.InvalidAnswers, CostUSD: u.CostUSD, Cost: pacing.Cost{Input: u.CostUSD}}
}
