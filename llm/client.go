package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// DefaultMaxValidationRetries is the default of Options.MaxValidationRetries.
const DefaultMaxValidationRetries = 2

// Options configure a Client. Zero values take the defaults.
type Options struct {
	BaseURL     string // e.g. https://api.openai.com/v1; requests go to BaseURL + "/chat/completions"
	Model       string
	APIKey      string // sent only as "Authorization: Bearer …"; never in errors or logs
	Temperature float64
	// FrequencyPenalty is sent as frequency_penalty when not 0: it stops most of a small local
	// model's loops that repeat one list item until max_tokens (bench/results.md, eval-local).
	FrequencyPenalty float64
	MaxAttempts      int // HTTP attempts per request (DefaultMaxAttempts)
	// MaxValidationRetries bounds the extra requests made when an answer breaks the schema
	// (DefaultMaxValidationRetries when 0; negative means none).
	MaxValidationRetries int
	Timeout              time.Duration // per HTTP attempt; 0 means none
	BackoffBase          time.Duration // first retry pause (DefaultBackoffBase)
	BackoffMax           time.Duration // longest retry pause (DefaultBackoffMax)
	// Pacer is the run's shared pacer. When nil the client makes its own from Concurrency
	// (DefaultConcurrency), RPM and TPM.
	Pacer       *pacing.Pacer
	Concurrency int
	RPM, TPM    int
	Budget      *pacing.Budget // the run's shared budget; nil: no limit
	Prices      pacing.Prices  // price table (DefaultPrices when nil); an unknown model costs 0
	Log         *slog.Logger   // retries at debug level; nil: no logs
	// ResponseFormat is how requests ask for structured output: one of Formats
	// (FormatJSONSchema when empty).
	ResponseFormat string
	// MaxTokens overrides the max_tokens sizing rule (MaxTokens) of the tasks it names.
	MaxTokens map[string]int
}

// Client calls the chat completions API with structured output for the tasks of tasks.go.
// It is safe for concurrent use.
type Client struct {
	opts    Options
	prompts *wire.Prompts
	cache   Cache
	tasks   map[string]*wire.Task
	pacer   *pacing.Pacer
	poster  *transport.Poster
	meter   *meter
	price   pacing.Price
	priced  bool           // the model is in the price table
	batch   *batch.Batcher // nil: online (UseBatches)
	obs     calls.Observer // nil: none (Observe)
	// estimated holds the last prompt of each task Estimate rendered (CallEstimate.CachedPromptTokens).
	estimated *lastPrompts
}

// NewClient returns a client. hc nil means http.DefaultClient; prompts nil means the embedded
// prompts; cache nil disables caching. It panics only if a built-in task schema cannot be
// built, which the package tests rule out.
func NewClient(opts Options, hc *http.Client, prompts *wire.Prompts, cache Cache) *Client {
	if opts.MaxValidationRetries == 0 {
		opts.MaxValidationRetries = DefaultMaxValidationRetries
	}
	opts.MaxValidationRetries = max(opts.MaxValidationRetries, 0)
	if prompts == nil {
		p, err := wire.LoadPrompts("")
		if err != nil {
			panic(fmt.Sprintf("llm: loading embedded prompts: %v", err))
		}
		prompts = p
	}
	tasks := map[string]*wire.Task{}
	for _, name := range wire.Tasks() {
		t, err := wire.LookupTask(name)
		if err != nil {
			panic(fmt.Sprintf("llm: %v", err))
		}
		tasks[name] = t
	}
	pacer := opts.Pacer
	if pacer == nil {
		pacer = pacing.NewPacer(pacing.PacerOptions{Concurrency: opts.Concurrency, RPM: opts.RPM, TPM: opts.TPM})
	}
	if opts.Prices == nil {
		opts.Prices = pacing.DefaultPrices()
	}
	if opts.ResponseFormat == "" {
		opts.ResponseFormat = wire.FormatJSONSchema
	}
	price, priced := opts.Prices.Lookup(opts.Model)
	return &Client{
		opts: opts, prompts: prompts, cache: cache, tasks: tasks, pacer: pacer, meter: newMeter(),
		price: price, priced: priced, estimated: &lastPrompts{},
		poster: &transport.Poster{
			BaseURL: opts.BaseURL, APIKey: opts.APIKey, HTTP: hc, Pacer: pacer, Budget: opts.Budget, Price: price,
			MaxAttempts: opts.MaxAttempts, Timeout: opts.Timeout,
			BackoffBase: opts.BackoffBase, BackoffMax: opts.BackoffMax, Log: opts.Log,
		},
	}
}

// Price is the price of the client's model; ok is false when the price table does not know it
// (its calls are then counted at 0).
func (c *Client) Price() (p pacing.Price, ok bool) { return c.price, c.priced }

// Pacer is the pacer the client's requests pass.
func (c *Client) Pacer() *pacing.Pacer { return c.pacer }

// Model is the model the client asks.
func (c *Client) Model() string { return c.opts.Model }

// Prompts returns the prompt set the client renders.
func (c *Client) Prompts() *wire.Prompts { return c.prompts }

// TaskVersion is a sha256 (hex) of everything that shapes a task's answers besides its input:
// model, temperature, prompt hash, schema (with its caps), response format and the max_tokens
// rule. Stages put it in unit fingerprints.
func (c *Client) TaskVersion(task string) string {
	h := sha256.New()
	cache.Field(h, c.opts.Model)
	cache.Field(h, fmt.Sprint(c.opts.Temperature))
	if c.opts.FrequencyPenalty != 0 { // absent when 0, so existing fingerprints stay valid
		cache.Field(h, "frequency_penalty="+fmt.Sprint(c.opts.FrequencyPenalty))
	}
	cache.Field(h, c.prompts.Hash(task))
	if t, ok := c.tasks[task]; ok {
		cache.Field(h, string(t.Raw))
		cache.Field(h, string(t.Capped))
	}
	cache.Field(h, c.opts.ResponseFormat)
	if t, ok := c.tasks[task]; ok && c.opts.ResponseFormat == wire.FormatGrammar && t.GrammarVariant != "" {
		cache.Field(h, "grammar="+t.GrammarVariant) // absent for a task's own grammar
	}
	cache.Field(h, c.tokenPolicy(task))
	return hex.EncodeToString(h.Sum(nil))
}

// Usage returns a snapshot of the counters, in total and per stage.
func (c *Client) Usage() pacing.Usage { return c.meter.snapshot(c.pacer.Peak()) }

// Call renders task's prompt with input, answers from the cache when it can, otherwise sends
// the request, validates the answer against the task's schema (retrying with the validation
// error fed back, at most MaxValidationRetries times), stores a valid answer in the cache and
// decodes it into out (a pointer to the task's output type, or nil). stage names the usage
// counters and the cache namespace.
//
// Every request carries the task's max_tokens (MaxTokens). An answer the limit cut
// (finish_reason "length") that does not validate is salvaged (salvage: kept up to its last
// complete list item, repeated items dropped) when it repeats a list item, a loop a longer limit
// would pay for again; otherwise it is asked again once with lengthRaise times the limit before
// it counts as invalid. When the last answer is still cut after the retries, its salvage is the
// answer if there is one. Salvaged answers are counted (StageUsage.Salvaged) and cached like
// valid ones. An answer still invalid after the retries is a *wire.ValidationError carrying the last
// raw answer.
func (c *Client) Call(ctx context.Context, stage, task string, input, out any) (err error) {
	t, ok := c.tasks[task]
	if !ok {
		return fmt.Errorf("calling %s: unknown task", task)
	}
	msgs, err := c.prompts.Render(task, input)
	if err != nil {
		return err
	}
	if c.opts.ResponseFormat == wire.FormatGrammar {
		if t, err = t.ForInput(input); err != nil {
			return fmt.Errorf("calling %s: %w", task, err)
		}
	}
	msgs = t.WithSchema(c.opts.ResponseFormat, msgs)
	key := c.cacheKey(t, msgs)
	if c.cache != nil {
		e, hit, err := c.cache.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("reading cache for %s: %w", task, err)
		}
		if hit && t.Schema.Validate(e.Response) == nil {
			if !batch.IsReplay(ctx) {
				c.meter.update(stage, task, func(s *pacing.StageUsage) { s.CacheHits++ })
			}
			return decode(task, e.Response, out)
		}
	}
	var entry cache.Entry
	conv, limit := msgs, c.MaxTokens(task, msgs)
	var used pacing.StageUsage // the call's requests, for its observer
	outcome, finish := calls.CallOK, ""
	if c.obs != nil {
		var end func(calls.CallEnd)
		ctx, end = c.obs.Call(ctx, calls.CallInfo{Operation: calls.OperationChat, Stage: stage, Task: task, MaxTokens: limit,
			Temperature: c.opts.Temperature, Batch: c.batch != nil})
		defer func() {
			if err != nil {
				outcome = calls.CallOutcome(err)
			}
			end(calls.CallEnd{Outcome: outcome, Err: err, Usage: used, Finish: finish})
		}()
	}
	raised := false
	var invalid error
	var last []byte
	var kept []byte     // the salvage of the last answer when max_tokens cut it and it has one
	var walked []string // the batch requests this call went through (batch mode)
	requests := 0
	// accept ends the call with a valid answer: it is cached (unless it came from the cache,
	// where a provider batch puts its valid answers) and decoded.
	accept := func(answer []byte, cached bool) error {
		c.consumed(walked)
		entry.Namespace, entry.Response = stage, answer
		if c.cache != nil && !cached {
			// A paid answer is stored even when the run is being cancelled, so a resume never
			// pays for it again.
			if err := c.cache.Put(context.WithoutCancel(ctx), key, entry); err != nil {
				return fmt.Errorf("writing cache for %s: %w", task, err)
			}
		}
		return decode(task, answer, out)
	}
	for try := 0; ; {
		answer, meta, bad, err := c.ask(ctx, stage, t, key, conv, limit, requests, &walked)
		requests++
		used.Calls += int64(meta.requests)
		used.Retries += int64(meta.retries)
		used.Add(meta.usage, meta.cost)
		finish = meta.finish
		if err != nil {
			if !errors.Is(err, batch.ErrPending) {
				c.consumed(walked)
			}
			return fmt.Errorf("calling %s: %w", task, err)
		}
		// Answers that came from a batch were counted when the batch was delivered, and
		// their retries when they were queued.
		count := func(f func(*pacing.StageUsage)) {
			if !meta.batched {
				c.meter.update(stage, task, f)
			}
		}
		entry.PromptTokens += meta.usage.PromptTokens
		entry.CompletionTokens += meta.usage.CompletionTokens
		if invalid = bad; invalid == nil {
			invalid = checkAnswer(t, answer)
		}
		if invalid == nil {
			return accept(answer, meta.batched)
		}
		last, kept = answer, nil
		if meta.finish == wire.FinishLength {
			count(func(s *pacing.StageUsage) { s.Truncated++ })
			fixed, repeats, ok := salvage(t, answer)
			// A cut answer that repeats a list item ran in a loop: a longer limit pays for
			// the loop again, what came before it is the answer.
			if ok && repeats > 0 {
				outcome = calls.CallSalvaged
				c.meter.update(stage, task, func(s *pacing.StageUsage) { s.Salvaged++ })
				slog.Warn("answer cut in a loop, kept up to its last complete item", "stage", stage, "task", task, "repeated_items", repeats)
				return accept(fixed, false)
			}
			if ok {
				kept = fixed
			}
			if !raised {
				raised, limit = true, limit*lengthRaise
				count(func(s *pacing.StageUsage) { s.Retries++ })
				used.Retries++
				continue
			}
			invalid = &wire.SchemaError{Msg: fmt.Sprintf("the answer was cut at the length limit of %d tokens (%v); write a shorter answer", limit, invalid)}
		}
		count(func(s *pacing.StageUsage) { s.InvalidAnswers++ })
		if try == c.opts.MaxValidationRetries {
			break
		}
		try++
		count(func(s *pacing.StageUsage) { s.Retries++ })
		used.Retries++
		conv = wire.WithFeedback(msgs, invalid)
	}
	if kept != nil {
		// The last answer was cut too: its complete items are kept rather than none.
		outcome = calls.CallSalvaged
		c.meter.update(stage, task, func(s *pacing.StageUsage) { s.Salvaged++ })
		slog.Warn("answer still cut at the length limit after the retries, kept up to its last complete item", "stage", stage, "task", task, "attempts", requests)
		return accept(kept, false)
	}
	c.consumed(walked)
	return &wire.ValidationError{Task: task, Attempts: requests, Err: invalid, Raw: clip(last, maxRawAnswer)}
}

// cacheKey is the cache key of a task's request with the rendered messages msgs.
func (c *Client) cacheKey(t *wire.Task, msgs []wire.Message) string {
	return CacheKey(c.opts.Model, msgs, t.Name, t.Raw, c.opts.Temperature, requestExtras(c.opts.ResponseFormat, c.opts.FrequencyPenalty, t.GrammarVariant)...)
}

// answerMeta is what complete learns besides the answer: the usage block and its cost, the
// finish reason, the transport retries, and whether the answer came from a provider batch (its
// usage was counted on delivery).
type answerMeta struct {
	usage    wire.TokenUsage
	cost     pacing.Cost
	finish   string
	requests int // requests sent (transport retries included)
	retries  int // of them, transport retries
	batched  bool
}

// complete sends one chat request (with transport retries) with the given max_tokens and
// returns the answer text, the usage and the finish reason. A response that carries no usable
// answer (not a chat response, no choices, a refusal) is returned as bad, so it takes the
// validation retry path; err is a failed request.
func (c *Client) complete(ctx context.Context, stage string, t *wire.Task, msgs []wire.Message, maxTokens int) (answer []byte, rp answerMeta, bad, err error) {
	body, err := c.requestBody(t, msgs, maxTokens)
	if err != nil {
		return nil, rp, nil, err
	}
	track := c.meter.track(stage, t.Name)
	req := transport.Request{Path: "/chat/completions", Body: body,
		PromptTokens: wire.EstimatePrompt(msgs, t.PromptSchema(c.opts.ResponseFormat)), CompletionTokens: wire.ExpectedCompletion(t.Name),
		Track: func(delta int) {
			if delta > 0 {
				rp.requests++ // Post calls Track from this goroutine
			}
			track(delta)
		}}
	if c.obs != nil {
		req.Waited = func(d time.Duration) { c.obs.Waited(stage, t.Name, d) }
	}
	res, err := c.poster.Post(ctx, req)
	cost := c.price.Costs(res.Usage)
	c.meter.update(stage, t.Name, func(s *pacing.StageUsage) {
		s.Retries += int64(res.Retries)
		s.Add(res.Usage, cost)
	})
	rp.retries = res.Retries
	if err != nil {
		return nil, rp, nil, err
	}
	rp.usage, rp.cost = res.Usage, cost
	var resp wire.ChatResponse
	if err := json.Unmarshal(res.Body, &resp); err != nil {
		return nil, rp, fmt.Errorf("parsing chat response: %w", err), nil
	}
	if len(resp.Choices) > 0 {
		rp.finish = resp.Choices[0].FinishReason
	}
	answer, bad = answerText(resp)
	return answer, rp, bad, nil
}

// requestBody is the body of a chat request.
func (c *Client) requestBody(t *wire.Task, msgs []wire.Message, maxTokens int) ([]byte, error) {
	req := wire.ChatRequest{
		Model: c.opts.Model, Messages: msgs, Temperature: c.opts.Temperature, MaxTokens: maxTokens,
		FrequencyPenalty: c.opts.FrequencyPenalty, ResponseFormat: t.ResponseFormat(c.opts.ResponseFormat),
	}
	if c.opts.ResponseFormat == wire.FormatGrammar {
		req.Grammar = t.Grammar
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	return body, nil
}

// decode unmarshals a validated answer into out.
func decode(task string, answer []byte, out any) error {
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("decoding answer of %s: %w", task, err)
	}
	return nil
}
