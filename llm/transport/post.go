package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/tkgraph/backfill/internal/retry"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// Defaults of Poster and Options.
const (
	DefaultMaxAttempts = 4
	DefaultBackoffBase = 500 * time.Millisecond
	DefaultBackoffMax  = 30 * time.Second
	maxRetryAfter      = 5 * time.Minute // a Retry-After above this is cut to it
	maxBodyBytes       = 256 << 20       // answers larger than this are refused
	maxErrorText       = 300             // bytes of a server error message kept in errors
)

// Poster sends JSON POST requests to an OpenAI-compatible API through the run's Pacer. Every
// attempt reserves its estimated cost from the Budget, then holds one Pacer slot (after the
// TPM and RPM buckets allow it). 408/409/429/5xx answers, network errors and per-attempt
// timeouts are retried up to MaxAttempts with exponential backoff and full jitter, or after the
// server's Retry-After. Auth and quota failures return at once. When the Budget refuses an
// attempt, Post waits until every admitted request has finished (their answers are paid for
// and get cached) and returns the *BudgetError. The API key is sent only in the Authorization header
// and is redacted from every error and log line. The http.Client must not retry on its own.
type Poster struct {
	BaseURL     string // e.g. https://api.openai.com/v1
	APIKey      string // may be empty (local servers)
	HTTP        *http.Client
	Pacer       *pacing.Pacer  // nil: no pacing
	Budget      *pacing.Budget // nil: no limit
	Price       pacing.Price   // of the model, for Response.CostUSD and budget reservations
	MaxAttempts int            // attempts per request; DefaultMaxAttempts when < 1
	Timeout     time.Duration  // per attempt; 0 means none beyond ctx and the http.Client's
	BackoffBase time.Duration  // first backoff; DefaultBackoffBase when 0
	BackoffMax  time.Duration  // backoff cap; DefaultBackoffMax when 0
	Log         *slog.Logger   // retries at debug level; nil: no logs
}

// Request is one POST through a Poster.
type Request struct {
	Path             string // appended to BaseURL, e.g. "/chat/completions"
	Body             []byte
	PromptTokens     int             // estimated prompt tokens: charged to TPM, priced for the budget
	CompletionTokens int             // expected completion tokens, likewise
	Track            func(delta int) // if not nil: +1 when an attempt starts, -1 when it ends
	// Waited, if not nil, receives how long each attempt waited for the Pacer (a slot, then
	// the TPM and RPM buckets) before it started.
	Waited func(time.Duration)
}

// Response is a successful answer.
type Response struct {
	Body    []byte
	Retries int             // attempts beyond the first
	Usage   wire.TokenUsage // the answer's usage block; zero when absent or unreadable
	CostUSD float64         // Usage priced with Poster.Price
}

// Post sends req and returns the answer. On error, Response.Retries still counts the retries
// made.
func (p *Poster) Post(ctx context.Context, req Request) (Response, error) {
	url := strings.TrimRight(p.BaseURL, "/") + req.Path
	tokens := req.PromptTokens + req.CompletionTokens
	est := p.Price.Estimate(req.PromptTokens, req.CompletionTokens)
	var out Response
	tries, err := retry.Do(ctx, p.policy(), classify, func(attempt int, err error, wait time.Duration) {
		if p.Log != nil {
			p.Log.Debug("llm request retry", "path", req.Path, "attempt", attempt+1, "wait", wait.String(),
				"error", redactText(p.APIKey, err.Error(), 2*maxErrorText))
		}
	}, func(ctx context.Context, _ int) error {
		if err := p.Budget.Reserve(est); err != nil {
			if werr := p.Budget.Wait(ctx); werr != nil {
				return &budgetStop{werr}
			}
			return &budgetStop{fmt.Errorf("posting %s: %w", req.Path, err)}
		}
		body, err := p.attempt(ctx, url, req.Body, tokens, req.Track, req.Waited)
		if err != nil {
			p.Budget.Settle(est, 0)
			return err
		}
		u := usageOf(body)
		out = Response{Body: body, Usage: u, CostUSD: p.Price.Cost(u)}
		p.Budget.Settle(est, out.CostUSD)
		settle(p.Pacer, tokens, u.PromptTokens+u.CompletionTokens)
		return nil
	})
	out.Retries = tries - 1
	var stop *budgetStop
	switch {
	case err == nil:
		return out, nil
	case errors.As(err, &stop):
		// The refused try was never sent: it is not a retry.
		return Response{Retries: max(tries-2, 0)}, stop.err
	case IsRetryable(err) && tries == p.attempts():
		return out, redact(p.APIKey, fmt.Errorf("posting %s after %d attempts: %w", req.Path, tries, err))
	}
	return out, redact(p.APIKey, fmt.Errorf("posting %s: %w", req.Path, err))
}

// budgetStop carries the Budget's refusal out of the retry loop unchanged.
type budgetStop struct{ err error }

func (b *budgetStop) Error() string { return b.err.Error() }

// attempts is the number of tries per request.
func (p *Poster) attempts() int {
	if p.MaxAttempts < 1 {
		return DefaultMaxAttempts
	}
	return p.MaxAttempts
}

// policy is the retry policy of every request: exponential backoff from BackoffBase, capped at
// BackoffMax, with full jitter; a server's Retry-After is honoured up to maxRetryAfter.
func (p *Poster) policy() retry.Policy {
	base, ceil := p.BackoffBase, p.BackoffMax
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if ceil <= 0 {
		ceil = DefaultBackoffMax
	}
	return retry.Policy{Attempts: p.attempts(), Base: base, Max: ceil, Jitter: retry.Full, MaxWait: maxRetryAfter}
}

// classify retries what IsRetryable accepts, after the server's Retry-After when it gave one.
func classify(err error) (bool, time.Duration) {
	var t *TransientError
	if errors.As(err, &t) {
		return IsRetryable(err), t.RetryAfter
	}
	return IsRetryable(err), 0
}

// usageOf reads the usage block of an answer; zero when there is none.
func usageOf(body []byte) wire.TokenUsage {
	var v struct {
		Usage *wire.TokenUsage `json:"usage"`
	}
	if json.Unmarshal(body, &v) != nil || v.Usage == nil {
		return wire.TokenUsage{}
	}
	return *v.Usage
}

// do sends req with the API key (when there is one) on the Poster's http.Client.
func (p *Poster) do(req *http.Request) (*http.Response, error) {
	if p.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	hc := p.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	return hc.Do(req)
}

// attempt makes one request while holding a Pacer slot, and hands the time it waited for the
// slot to waited (when not nil).
func (p *Poster) attempt(ctx context.Context, url string, body []byte, tokens int, track func(int), waited func(time.Duration)) ([]byte, error) {
	start := time.Now()
	if err := acquire(ctx, p.Pacer, tokens); err != nil {
		return nil, err
	}
	if waited != nil {
		waited(time.Since(start))
	}
	defer release(p.Pacer) // runs after track(-1): the tracked count never exceeds the slots
	if track != nil {
		track(+1)
		defer track(-1)
	}

	actx, cancel := ctx, context.CancelFunc(func() {})
	if p.Timeout > 0 {
		actx, cancel = context.WithTimeout(ctx, p.Timeout)
	}
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("building request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := p.do(req)
	if err != nil {
		return nil, p.networkError(ctx, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	if err != nil {
		return nil, p.networkError(ctx, err)
	}
	if len(data) > maxBodyBytes {
		return nil, &StatusError{Status: resp.StatusCode, Message: fmt.Sprintf("answer larger than %d bytes", maxBodyBytes)}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return data, nil
	}
	return nil, p.statusError(resp, data)
}

// acquire, release and settle are the Pacer's calls as the Poster makes them: a nil pacer paces
// nothing.
func acquire(ctx context.Context, p *pacing.Pacer, tokens int) error {
	if p == nil {
		return ctx.Err()
	}
	return p.Acquire(ctx, tokens)
}

func release(p *pacing.Pacer) {
	if p != nil {
		p.Release()
	}
}

func settle(p *pacing.Pacer, estimated, actual int) {
	if p != nil {
		p.Settle(estimated, actual)
	}
}
