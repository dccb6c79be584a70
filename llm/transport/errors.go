package transport

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tkgraph/backfill/llm/wire"
)

// AuthError is a 401 or 403 answer: the key is missing, wrong or not allowed. It is fatal: the
// run must stop, since every other call would fail the same way.
type AuthError struct {
	Status  int
	Message string // the server's message, with the API key redacted
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("authentication failed (HTTP %d): %s", e.Status, e.Message)
}

// QuotaError is an "insufficient_quota" answer: the account has no credit left. It is fatal.
type QuotaError struct {
	Status  int
	Message string
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("quota exhausted (HTTP %d): %s", e.Status, e.Message)
}

// StatusError is any other non-retryable HTTP answer (400, 404, 422…). It fails the call, not
// the run.
type StatusError struct {
	Status  int
	Code    string
	Message string
}

func (e *StatusError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("HTTP %d (%s): %s", e.Status, e.Code, e.Message)
	}
	return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message)
}

// TransientError is a failure worth retrying: 408, 409, 429, 5xx, a network error or a per-request
// timeout. Status is 0 for network errors. Call returns it (wrapped) once attempts run out.
type TransientError struct {
	Status     int
	Message    string
	RetryAfter time.Duration // from the Retry-After header; 0 when absent
	Err        error         // the network error, if any
}

func (e *TransientError) Error() string {
	if e.Status == 0 {
		return "transient failure: " + e.Message
	}
	return fmt.Sprintf("transient failure (HTTP %d): %s", e.Status, e.Message)
}

func (e *TransientError) Unwrap() error { return e.Err }

// IsFatal reports whether err must stop the whole run (auth or quota failure).
func IsFatal(err error) bool {
	var a *AuthError
	var q *QuotaError
	return errors.As(err, &a) || errors.As(err, &q)
}

// IsRetryable reports whether err is a transient failure that a later run may not meet again.
func IsRetryable(err error) bool {
	var t *TransientError
	return errors.As(err, &t)
}

// redactedError hides a secret in the message of an error it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redacted is what a secret is replaced with in error messages.
const Redacted = "[REDACTED]"

// redact returns err with every occurrence of secret in its message replaced by Redacted.
// The wrapped chain is kept for errors.As; the typed errors of this package are built from
// already redacted text.
func redact(secret string, err error) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redactedError{msg: strings.ReplaceAll(err.Error(), secret, Redacted), err: err}
}

// redactText replaces secret in s and shortens s to at most max bytes (on a rune boundary).
func redactText(secret, s string, max int) string {
	if secret != "" {
		s = strings.ReplaceAll(s, secret, Redacted)
	}
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Redact is s as an error or a log line of the Poster may show it: without the API key, at most
// maxErrorText bytes.
func (p *Poster) Redact(s string) string { return redactText(p.APIKey, s, maxErrorText) }

// IsBadAnswer reports whether err is a bad answer to one call rather than a failure of the
// service: an answer still invalid after the retries (*wire.ValidationError) or a request the server
// refused as such (*StatusError, e.g. an input over the model's context). Such an error fails
// the unit that made the call, not the run.
func IsBadAnswer(err error) bool {
	var v *wire.ValidationError
	var s *StatusError
	return errors.As(err, &v) || errors.As(err, &s)
}
