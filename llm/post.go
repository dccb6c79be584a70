package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
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
	Pacer       *Pacer        // nil: no pacing
	Budget      *Budget       // nil: no limit
	Price       Price         // of the model, for Response.CostUSD and budget reservations
	MaxAttempts int           // attempts per request; DefaultMaxAttempts when < 1
	Timeout     time.Duration // per attempt; 0 means none beyond ctx and the http.Client's
	BackoffBase time.Duration // first backoff; DefaultBackoffBase when 0
	BackoffMax  time.Duration // backoff cap; DefaultBackoffMax when 0
	Log         *slog.Logger  // retries at debug level; nil: no logs
}

// Request is one POST through a Poster.
type Request struct {
	Path             string // appended to BaseURL, e.g. "/chat/completions"
	Body             []byte
	PromptTokens     int             // estimated prompt tokens: charged to TPM, priced for the budget
	CompletionTokens int             // expected completion tokens, likewise
	Track            func(delta int) // if not nil: +1 when an attempt starts, -1 when it ends
}

// Response is a successful answer.
type Response struct {
	Body    []byte
	Retries int        // attempts beyond the first
	Usage   TokenUsage // the answer's usage block; zero when absent or unreadable
	CostUSD float64    // Usage priced with Poster.Price
}

// Post sends req and returns the answer. On error, Response.Retries still counts the retries
// made.
func (p *Poster) Post(ctx context.Context, req Request) (Response, error) {
	attempts := p.MaxAttempts
	if attempts < 1 {
		attempts = DefaultMaxAttempts
	}
	url := strings.TrimRight(p.BaseURL, "/") + req.Path
	tokens := req.PromptTokens + req.CompletionTokens
	est := p.Price.Estimate(req.PromptTokens, req.CompletionTokens)
	var last error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			d := p.wait(i-1, last)
			if p.Log != nil {
				p.Log.Debug("llm request retry", "path", req.Path, "attempt", i+1, "wait", d.String(),
					"error", redactText(p.APIKey, last.Error(), 2*maxErrorText))
			}
			if err := sleep(ctx, d); err != nil {
				return Response{Retries: i - 1}, fmt.Errorf("waiting to retry %s: %w", req.Path, err)
			}
		}
		if err := p.Budget.Reserve(est); err != nil {
			if werr := p.Budget.Wait(ctx); werr != nil {
				return Response{Retries: max(i-1, 0)}, werr
			}
			return Response{Retries: max(i-1, 0)}, fmt.Errorf("posting %s: %w", req.Path, err)
		}
		out, err := p.attempt(ctx, url, req.Body, tokens, req.Track)
		if err == nil {
			u := usageOf(out)
			cost := p.Price.Cost(u)
			p.Budget.Settle(est, cost)
			p.Pacer.settle(tokens, u.PromptTokens+u.CompletionTokens)
			return Response{Body: out, Retries: i, Usage: u, CostUSD: cost}, nil
		}
		p.Budget.Settle(est, 0)
		if !IsRetryable(err) {
			return Response{Retries: i}, redact(p.APIKey, fmt.Errorf("posting %s: %w", req.Path, err))
		}
		last = err
	}
	return Response{Retries: attempts - 1}, redact(p.APIKey, fmt.Errorf("posting %s after %d attempts: %w", req.Path, attempts, last))
}

// usageOf reads the usage block of an answer; zero when there is none.
func usageOf(body []byte) TokenUsage {
	var v struct {
		Usage *TokenUsage `json:"usage"`
	}
	if json.Unmarshal(body, &v) != nil || v.Usage == nil {
		return TokenUsage{}
	}
	return *v.Usage
}

// attempt makes one request while holding a Pacer slot.
func (p *Poster) attempt(ctx context.Context, url string, body []byte, tokens int, track func(int)) ([]byte, error) {
	if err := p.Pacer.acquire(ctx, tokens); err != nil {
		return nil, err
	}
	defer p.Pacer.release() // runs after track(-1): the tracked count never exceeds the slots
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
	if p.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.APIKey)
	}
	hc := p.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
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

// wait is the pause before retry number i+1: the server's Retry-After when given, otherwise
// exponential backoff with full jitter in [d/2, d].
func (p *Poster) wait(i int, last error) time.Duration {
	var t *TransientError
	if errors.As(last, &t) && t.RetryAfter > 0 {
		return min(t.RetryAfter, maxRetryAfter)
	}
	base, ceil := p.BackoffBase, p.BackoffMax
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if ceil <= 0 {
		ceil = DefaultBackoffMax
	}
	d := base << min(i, 30)
	if d <= 0 || d > ceil {
		d = ceil
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
