package batch

import (
	"context"
	"fmt"
	"net/http"

	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// Kind is what a Batcher needs to know about the requests it carries; the chat client and
// the embeddings client each implement it.
type Kind interface {
	Kind() string     // KindChat or KindEmbeddings
	Endpoint() string // EndpointChat or EndpointEmbeddings
	// Answered reports whether the cache holds the answer of it (delivered earlier).
	Answered(ctx context.Context, it Item) (bool, error)
	// Settle checks the body of a 200 answer to the request of row.
	Settle(row Request, body []byte) Settled
	// ResubmitInvalid: an invalid answer is asked again as the same request (embeddings),
	// instead of going back to the caller for a retry with feedback (chat).
	ResubmitInvalid() bool
	// Count applies f to the usage counters of stage, for task.
	Count(stage, task string, f func(*pacing.StageUsage))
}

// Settled is what Settle makes of an answer.
type Settled struct {
	Valid   bool
	Entries []cache.Keyed // the cache entries of a valid answer
	Detail  string        // why the answer is invalid
	Raw     []byte        // the invalid answer, bounded by the Kind (the chat client keeps 8 KiB)
	Finish  string        // its finish reason
	Usage   wire.TokenUsage
}

// Item is one request a call wants answered through a batch.
type Item struct {
	Key        string // Key(endpoint, Body, attempt)
	Body       []byte // the request body
	Stage      string
	Task       string
	Keys       []string // the cache keys of the answer
	Prompt     int      // estimated prompt tokens, for the budget
	Completion int      // expected completion tokens
	Retry      bool     // a validation retry of an earlier request (counted in Retries when queued)
}

// Outcome is what became of a request whose batch ended.
type Outcome struct {
	Status string // ReqValid (the answer is in the cache), ReqInvalid, or ReqFailed/ReqUnfinished
	Detail string
	Raw    []byte
	Finish string
	Code   int
	// Exhausted: the request failed (or was left undone) and this run has no batch retry left
	// for it: send it online (Options.FallbackOnline) or fail the call with Err.
	Exhausted bool
}

// Err is the error of an exhausted request: a 4xx status (not 408, 409, 429) is a *StatusError
// (a bad request: it fails the caller's unit), anything else a *TransientError (the run stops;
// a later run asks again).
func (o Outcome) Err() error {
	msg := fmt.Sprintf("batch request %s: %s", o.Status, o.Detail)
	if o.Code >= 400 && o.Code < 500 && o.Code != http.StatusRequestTimeout && o.Code != http.StatusConflict &&
		o.Code != http.StatusTooManyRequests {
		return &transport.StatusError{Status: o.Code, Message: msg}
	}
	return &transport.TransientError{Status: o.Code, Message: msg}
}

// Usage counts a Batcher's work in one run (batchrec.Usage, which the run report holds).
type Usage = batchrec.Usage

// Failure is a batch that failed at the provider or was lost (batchrec.Failure).
type Failure = batchrec.Failure
