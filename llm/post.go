package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Poster sends JSON POST requests to an OpenAI-compatible API. Every attempt holds one Gate
// slot; 408/409/429/5xx answers, network errors and per-attempt timeouts are retried up to
// MaxAttempts with exponential backoff and full jitter, or after the server's Retry-After. Auth
// and quota failures return at once. The API key is sent only in the Authorization header and
// is redacted from every error.
type Poster struct {
	BaseURL     string // e.g. https://api.openai.com/v1
	APIKey      string // may be empty (local servers)
	HTTP        *http.Client
	Gate        *Gate
	MaxAttempts int           // attempts per request; DefaultMaxAttempts when < 1
	Timeout     time.Duration // per attempt; 0 means none beyond ctx and the http.Client's
	BackoffBase time.Duration // first backoff; DefaultBackoffBase when 0
	BackoffMax  time.Duration // backoff cap; DefaultBackoffMax when 0
}

// Post sends body to BaseURL+path and returns the answer body and the number of retries made.
// track, if not nil, is called with +1 when a request takes a Gate slot and -1 when it frees it.
func (p *Poster) Post(ctx context.Context, path string, body []byte, track func(delta int)) ([]byte, int, error) {
	attempts := p.MaxAttempts
	if attempts < 1 {
		attempts = DefaultMaxAttempts
	}
	url := strings.TrimRight(p.BaseURL, "/") + path
	var last error
	for i := 0; i < attempts; i++ {
		if i > 0 {
			if err := sleep(ctx, p.wait(i-1, last)); err != nil {
				return nil, i - 1, fmt.Errorf("waiting to retry %s: %w", path, err)
			}
		}
		out, err := p.attempt(ctx, url, body, track)
		if err == nil {
			return out, i, nil
		}
		if !IsRetryable(err) {
			return nil, i, redact(p.APIKey, fmt.Errorf("posting %s: %w", path, err))
		}
		last = err
	}
	return nil, attempts - 1, redact(p.APIKey, fmt.Errorf("posting %s after %d attempts: %w", path, attempts, last))
}

// attempt makes one request while holding a Gate slot.
func (p *Poster) attempt(ctx context.Context, url string, body []byte, track func(int)) ([]byte, error) {
	gate := p.Gate
	if gate == nil {
		gate = NewGate(1)
	}
	if err := gate.Acquire(ctx); err != nil {
		return nil, err
	}
	if track != nil {
		track(+1)
		defer track(-1)
	}
	defer gate.Release()

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

// networkError classifies a failed exchange: the caller's cancellation is final, anything else
// (including this attempt's own timeout) is transient.
func (p *Poster) networkError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &TransientError{Message: redactText(p.APIKey, err.Error(), maxErrorText), Err: err}
}

// statusError maps a non-2xx answer to a typed error.
func (p *Poster) statusError(resp *http.Response, data []byte) error {
	msg, code := errorDetails(data)
	msg = redactText(p.APIKey, msg, maxErrorText)
	code = redactText(p.APIKey, code, 64)
	status := resp.StatusCode
	switch {
	case code == "insufficient_quota":
		return &QuotaError{Status: status, Message: msg}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &AuthError{Status: status, Message: msg}
	case status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500:
		return &TransientError{Status: status, Message: msg, RetryAfter: retryAfter(resp.Header, time.Now())}
	default:
		return &StatusError{Status: status, Code: code, Message: msg}
	}
}

// errorDetails reads the message and code of an OpenAI-style error body, or falls back to the
// raw body. The code is the "code" field, or the "type" field when code is absent.
func errorDetails(data []byte) (msg, code string) {
	var er ErrorResponse
	if json.Unmarshal(data, &er) == nil && (er.Error.Message != "" || er.Error.Type != "") {
		code = er.Error.Type
		switch c := er.Error.Code.(type) {
		case string:
			if c != "" {
				code = c
			}
		case float64:
			if er.Error.Type == "" {
				code = fmt.Sprint(c)
			}
		}
		return er.Error.Message, code
	}
	return string(data), ""
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
