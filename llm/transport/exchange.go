package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/tkgraph/backfill/internal/retry"
)

// transferTimeout is the shortest per-attempt timeout of a batch API exchange: uploading or
// downloading a batch file of up to 200 MB takes longer than a chat request.
const transferTimeout = 10 * time.Minute

// payload makes the body of one attempt of an exchange (called again for every retry) and its
// content type.
type Payload func() (io.Reader, string, error)

// Exchange makes one request of the batch API (files and batches) with the Poster's retry
// policy and error classification, but without a Pacer slot or a Budget reservation: these
// requests are not model calls and cost nothing. read consumes a 2xx answer's body; an error
// reading the body is transient (the exchange is tried again, so read must be idempotent), any
// other error read returns is final.
func (p *Poster) Exchange(ctx context.Context, method, path string, body Payload, read func(io.Reader) error) error {
	url := strings.TrimRight(p.BaseURL, "/") + path
	timeout := max(p.Timeout, transferTimeout)
	tries, err := retry.Do(ctx, p.policy(), classify, func(attempt int, err error, wait time.Duration) {
		if p.Log != nil {
			p.Log.Debug("batch api retry", "method", method, "path", path, "attempt", attempt+1, "wait", wait.String(),
				"error", redactText(p.APIKey, err.Error(), 2*maxErrorText))
		}
	}, func(ctx context.Context, _ int) error {
		actx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var rd io.Reader
		ctype := ""
		if body != nil {
			var err error
			if rd, ctype, err = body(); err != nil {
				return err
			}
		}
		req, err := http.NewRequestWithContext(actx, method, url, rd)
		if err != nil {
			return fmt.Errorf("building request: %w", err)
		}
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := p.do(req)
		if err != nil {
			return p.networkError(ctx, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			return p.statusError(resp, data)
		}
		return read(&transientReader{r: resp.Body, mark: func(err error) error { return p.networkError(ctx, err) }})
	})
	switch {
	case err == nil:
		return nil
	case IsRetryable(err) && tries == p.attempts():
		return redact(p.APIKey, fmt.Errorf("%s %s after %d attempts: %w", method, path, tries, err))
	}
	return redact(p.APIKey, fmt.Errorf("%s %s: %w", method, path, err))
}

// transientReader marks an error reading an answer's body as transient, so the exchange is
// tried again; the end of the body is not an error.
type transientReader struct {
	r    io.Reader
	mark func(error) error // Poster.networkError
}

func (t *transientReader) Read(b []byte) (int, error) {
	n, err := t.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, t.mark(err)
	}
	return n, err
}
