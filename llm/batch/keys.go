package batch

import (
	"time"

	"github.com/tkgraph/backfill/internal/options"
)

// Settings are the batchers' job keys (llm.batch.*, for llm.mode or embedder.mode batch), in
// the job's words and units.
type Settings struct {
	MaxRequests int
	MaxBytes    int64
	// MaxRetries is how often one run submits a request again (0: never; nil: DefaultMaxRetries).
	MaxRetries     *int
	FallbackOnline bool
	PollSeconds    float64
}

// Declare declares the batchers' job keys on s's fields.
func (s *Settings) Declare(sec *options.Section) {
	sec.Int(&s.MaxRequests, "max_requests", "request lines per batch: the OpenAI Batch API's limit; lower it for gateways "+
		"with smaller ones", options.Default(DefaultMaxRequests), options.Max(1_000_000))
	sec.Int64(&s.MaxBytes, "max_bytes", "bytes per batch input file: the OpenAI Batch API's limit",
		options.Default(DefaultMaxBytes), options.Max(1<<31))
	sec.OptInt(&s.MaxRetries, "max_retries", "how often one run submits a request again after an error line, a batch that "+
		"ended without it (expired, cancelled, failed) or (embeddings) an unreadable answer (`0`: never)",
		options.Default(DefaultMaxRetries), options.Max(100))
	sec.Bool(&s.FallbackOnline, "fallback_online", "a request whose batch retries are used up is sent online instead of "+
		"failing its call")
	sec.Float(&s.PollSeconds, "poll_seconds", "how often an open batch is polled", options.Default(DefaultPoll.Seconds()),
		options.Max(86400))
}

// Options are the batchers' options of the settings; the spool, job, stop and log are the
// caller's.
func (s *Settings) Options() Options {
	retries := 0
	if s.MaxRetries != nil {
		retries = *s.MaxRetries
		if retries == 0 {
			retries = -1 // none (0 is the default)
		}
	}
	return Options{MaxRequests: s.MaxRequests, MaxBytes: s.MaxBytes, MaxRetries: retries, FallbackOnline: s.FallbackOnline,
		Poll: time.Duration(s.PollSeconds * float64(time.Second))}
}
