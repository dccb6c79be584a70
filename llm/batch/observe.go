package batch

import "context"

// Observer watches a Batcher's batches; package telemetry implements it (a span per batch from
// its first request to its submission, which the calls whose requests it carries link to, and
// a span per delivery). Options.Observer nil watches nothing.
type Observer interface {
	// Opened is called when a batch (rec: queued, no request yet) starts filling.
	Opened(ctx context.Context, rec Record)
	// Queued is called when the call of ctx queued a request into the batch of that id.
	Queued(ctx context.Context, id string)
	// Submitted is called once the batch of rec was submitted (err nil), or failed to be, or was
	// dropped unsent because the run drains (err pacing.ErrStopped).
	Submitted(ctx context.Context, rec Record, err error)
	// Delivering is called before an ended batch's answers are delivered (or the batch is
	// recorded lost); end is called after, with its record.
	Delivering(ctx context.Context, rec Record) (end func(Record, error))
}

// delivering is the observer's Delivering of rec, or a no-op.
func (b *Batcher) delivering(ctx context.Context, rec Record) func(Record, error) {
	if b.opts.Observer == nil {
		return func(Record, error) {}
	}
	return b.opts.Observer.Delivering(ctx, rec)
}
