package transport

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfter reads how long the server asks to wait: "Retry-After-Ms" (milliseconds, sent by
// OpenAI), else "Retry-After" as seconds or an HTTP date relative to now. It returns 0 when
// absent, malformed or in the past.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			return seconds(ms / 1000)
		}
	}
	return parseRetryAfter(h.Get("Retry-After"), now)
}

// parseRetryAfter parses a Retry-After value: delay seconds (integer or decimal) or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(s)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// seconds converts s seconds to a duration in [0, maxRetryAfter]; NaN and negatives give 0.
func seconds(s float64) time.Duration {
	if !(s > 0) {
		return 0
	}
	return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
}
