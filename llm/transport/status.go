package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

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
	msg, code := ErrorDetails(data)
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
func ErrorDetails(data []byte) (msg, code string) {
	var er wire.ErrorResponse
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
