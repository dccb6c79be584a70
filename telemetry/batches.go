package telemetry

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/tkgraph/backfill/llm/batch"
)

// Batches is the observer of the run's provider batches (llm.mode or embedder.mode: batch), nil
// when t is. A batch's span ("batch KIND", a child of the stage running) lasts from its first
// request to its submission; the span of every call whose request it carries links to it.
// Its delivery, in this run or a later one, is a span of its own ("batch KIND delivered"),
// linked to the submission's span when this run submitted it.
func (t *Telemetry) Batches() batch.Observer {
	if t == nil {
		return nil
	}
	return &batches{t: t}
}

type batches struct {
	t    *Telemetry
	sets attrSets
}

// Opened starts the span of a batch that starts filling.
func (b *batches) Opened(ctx context.Context, rec batch.Record) {
	_, span := b.t.tracer.Start(b.t.stageContext(context.WithoutCancel(ctx)), "batch "+rec.Kind,
		trace.WithAttributes(keyBatchID.String(rec.ID), keyBatchKind.String(rec.Kind)))
	b.t.mu.Lock()
	b.t.batches[rec.ID] = span
	b.t.mu.Unlock()
}

// Queued links the call of ctx to the span of the batch its request joined.
func (b *batches) Queued(ctx context.Context, id string) {
	b.t.mu.Lock()
	span := b.t.batches[id]
	b.t.mu.Unlock()
	if span == nil {
		return
	}
	call := trace.SpanFromContext(ctx)
	call.SetAttributes(keyBatchID.String(id))
	call.AddLink(trace.Link{SpanContext: span.SpanContext()})
}

// Submitted ends a batch's span.
func (b *batches) Submitted(ctx context.Context, rec batch.Record, err error) {
	b.t.mu.Lock()
	span := b.t.batches[rec.ID]
	delete(b.t.batches, rec.ID)
	if span != nil && err == nil {
		b.t.sent[rec.ID] = span.SpanContext()
	}
	b.t.mu.Unlock()
	state := "submitted"
	switch {
	case err != nil && rec.State == batch.Queued:
		state = "dropped"
	case err != nil:
		state = "submit_failed"
	}
	b.count(ctx, rec.Kind, state)
	if span == nil {
		return
	}
	span.SetAttributes(keyBatchState.String(rec.State), keyBatchRequests.Int(rec.Requests), keyBatchBytes.Int64(rec.Bytes),
		keyBatchEstimate.Float64(rec.EstCostUSD))
	if rec.ProviderID != "" {
		span.SetAttributes(keyBatchProvider.String(rec.ProviderID))
	}
	fail(span, err)
	span.End()
}

// Delivering starts the span of a batch's delivery.
func (b *batches) Delivering(ctx context.Context, rec batch.Record) func(batch.Record, error) {
	b.t.mu.Lock()
	sent, ok := b.t.sent[rec.ID]
	b.t.mu.Unlock()
	opts := []trace.SpanStartOption{trace.WithAttributes(keyBatchID.String(rec.ID), keyBatchKind.String(rec.Kind),
		keyBatchProvider.String(rec.ProviderID))}
	if ok {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sent}))
	}
	ctx, span := b.t.tracer.Start(ctx, "batch "+rec.Kind+" delivered", opts...)
	return func(rec batch.Record, err error) {
		span.SetAttributes(keyBatchState.String(rec.State), keyBatchAnswers.Int(rec.Answers), keyBatchInvalid.Int(rec.Invalid),
			keyBatchErrors.Int(rec.Errors), keyBatchUndone.Int(rec.Unfinished))
		fail(span, err)
		span.End()
		b.count(ctx, rec.Kind, rec.State) // Delivered or Lost
	}
}

// count counts a batch of kind that reached state.
func (b *batches) count(ctx context.Context, kind, state string) {
	b.t.in.batches.Add(context.WithoutCancel(ctx), 1, b.sets.get(kind+"\x00"+state, func() attribute.Set {
		return attribute.NewSet(b.t.job, keyBatchKind.String(kind), keyBatchState.String(state))
	}))
}
