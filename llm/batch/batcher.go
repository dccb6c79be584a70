package batch

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// Defaults of Options.
const (
	DefaultMaxRequests = wire.BatchMaxRequests // the provider's limit per batch
	DefaultMaxBytes    = wire.BatchMaxBytes    // the provider's limit per input file
	DefaultMaxRetries  = 2
	DefaultPoll        = 30 * time.Second
)

// Options configure a Batcher. Zero values take the defaults.
type Options struct {
	MaxRequests int   // request lines per batch
	MaxBytes    int64 // bytes per input file
	// MaxRetries bounds how often one run submits a request again after it failed, was left
	// undone by an expired or cancelled batch, or (embeddings) came back unreadable; negative
	// means never.
	MaxRetries int
	// FallbackOnline sends a request online once its batch retries are used up (else the call
	// fails with the last error).
	FallbackOnline bool
	Poll           time.Duration  // how often an open batch is polled
	SpoolDir       string         // where input files are written before upload (os.TempDir() when "")
	SpoolPrefix    string         // file name prefix of the input files; Recover removes stale ones
	Job            string         // the job name, in each batch's metadata
	Price          pacing.Price   // the model's batch price (Price.Batch)
	Budget         *pacing.Budget // the run's budget: each request reserves its estimate when queued
	// Stop, when closed, refuses every new request (ErrStopped) and makes Flush drop what is
	// queued: a draining run submits nothing new.
	Stop     <-chan struct{}
	Log      *slog.Logger
	Observer Observer // watches the batches (telemetry); nil: none
}

func (o *Options) defaults() {
	if o.MaxRequests <= 0 {
		o.MaxRequests = DefaultMaxRequests
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxRetries == 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	o.MaxRetries = max(o.MaxRetries, 0)
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.SpoolPrefix == "" {
		o.SpoolPrefix = "backfill-batch-"
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Batcher sends requests through a provider's batch API (see doc.go, "Batch mode"). Safe for
// concurrent use.
type Batcher struct {
	api   *API
	store Store
	kind  Kind
	opts  Options

	mu        sync.Mutex // guards the fields below
	cur       *spool     // the batch being filled
	waiting   map[string]bool
	resubmits map[string]int  // request key → submissions again by this run after troubles
	losses    map[string]int  // request key → submissions again by this run after its batch was lost
	consumed  map[string]bool // request keys of finished calls (Release deletes their rows)
	usage     Usage

	tmu     sync.Mutex
	tracked map[string]*tracked
}

// New returns a batcher for requests of kind, recorded in store.
func New(api *API, store Store, kind Kind, opts Options) *Batcher {
	opts.defaults()
	return &Batcher{api: api, store: store, kind: kind, opts: opts, waiting: map[string]bool{},
		resubmits: map[string]int{}, losses: map[string]int{}, consumed: map[string]bool{}, tracked: map[string]*tracked{}}
}

// FallbackOnline reports whether an exhausted request goes online.
func (b *Batcher) FallbackOnline() bool { return b.opts.FallbackOnline }

// Usage returns the counters.
func (b *Batcher) Usage() Usage {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.usage
	u.Failures = slices.Clone(u.Failures)
	return u
}

// Request answers it from the batches: a request no batch carries yet is queued for the next
// batch (ErrPending); one in a batch that has not ended polls that batch (at most once per
// Poll) and waits (ErrPending); one whose batch ended returns its outcome, and one whose answer
// is in the cache (a batch delivered it) is valid whatever rows earlier batches left. A request
// that failed or was left undone is queued again, at most MaxRetries times per run, then
// returned Exhausted; one whose batch the provider lost is queued again once per loss, outside
// MaxRetries (losses of one request in one run are bounded by the same number). Nothing is ever
// queued twice: the store records every request before it is sent.
func (b *Batcher) Request(ctx context.Context, it Item) (Outcome, error) {
	for range 3 { // a pending row, then its batch delivered, then the settled row
		rows, err := b.store.BatchRequests(ctx, it.Key)
		if err != nil {
			return Outcome{}, fmt.Errorf("reading batch requests: %w", err)
		}
		var last Request
		if n := len(rows); n > 0 {
			last = rows[n-1]
		}
		if last.Status == ReqPending {
			ended, err := b.refresh(ctx, last.Batch)
			if err != nil {
				return Outcome{}, err
			}
			if ended {
				continue
			}
			b.await(last.Batch)
			return Outcome{}, ErrPending
		}
		answered, err := b.kind.Answered(ctx, it)
		if err != nil {
			return Outcome{}, err
		}
		if answered || last.Status == ReqValid {
			return Outcome{Status: ReqValid}, nil
		}
		return b.again(ctx, it, last)
	}
	return Outcome{}, fmt.Errorf("requesting %s: its batch ended but the request was not settled", it.Key)
}

// again decides what becomes of a request no batch carries now and the cache does not answer,
// by its last row (none: it was never sent).
func (b *Batcher) again(ctx context.Context, it Item, last Request) (Outcome, error) {
	switch last.Status {
	case "", ReqForgotten: // never sent, or sent for text a forgetting removed: a new request
		return Outcome{}, b.enqueue(ctx, it, firstTime)
	case ReqInvalid:
		if !b.kind.ResubmitInvalid() {
			return Outcome{Status: ReqInvalid, Detail: last.Detail, Raw: last.Raw, Finish: last.Finish}, nil
		}
	case ReqLost:
		if !b.exhausted(it.Key, true) {
			return Outcome{}, b.enqueue(ctx, it, afterLoss)
		}
		return Outcome{Status: last.Status, Detail: last.Detail, Code: last.Code, Exhausted: true}, nil
	}
	if b.exhausted(it.Key, false) {
		return Outcome{Status: last.Status, Detail: last.Detail, Code: last.Code, Exhausted: true}, nil
	}
	return Outcome{}, b.enqueue(ctx, it, afterTrouble)
}

// exhausted reports whether this run has submitted key again MaxRetries times already after
// troubles, or (lost) after losses of its batch (then at least once).
func (b *Batcher) exhausted(key string, lost bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if lost {
		return b.losses[key] >= max(b.opts.MaxRetries, 1)
	}
	return b.resubmits[key] >= b.opts.MaxRetries
}

// await notes that a call waits for the batch id.
func (b *Batcher) await(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.waiting[id] = true
}

// CountFallback counts a request sent online after its batch retries.
func (b *Batcher) CountFallback() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.usage.FallbackOnline++
}

// Consumed notes the request keys a finished call went through, so Release deletes their rows:
// a later run asks such a request again instead of reusing an answer that failed.
func (b *Batcher) Consumed(keys ...string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range keys {
		b.consumed[k] = true
	}
}

// Release deletes the rows of the consumed keys that are no longer pending. The stage runner
// calls it when a stage ends, when no call of the stage can walk these keys again.
func (b *Batcher) Release(ctx context.Context) error {
	b.mu.Lock()
	keys := make([]string, 0, len(b.consumed))
	for k := range b.consumed {
		keys = append(keys, k)
	}
	clear(b.consumed)
	b.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	if err := b.store.ForgetBatchRequests(ctx, keys); err != nil {
		return fmt.Errorf("releasing batch requests: %w", err)
	}
	return nil
}

// stopped reports whether the run drains.
func (b *Batcher) stopped() bool {
	select {
	case <-b.opts.Stop:
		return true
	default:
		return false
	}
}
