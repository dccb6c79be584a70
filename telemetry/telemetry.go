package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// ScopeName is the instrumentation scope of every span and metric.
const ScopeName = "github.com/tkgraph/backfill"

// Telemetry is one run's spans and metrics. A nil *Telemetry records nothing, and the
// observers it hands out are nil (nothing watches, nothing costs).
type Telemetry struct {
	tracer trace.Tracer
	job    attribute.KeyValue
	in     instruments

	mu      sync.Mutex
	stage   trace.SpanContext            // the stage running: the parent of batch spans
	batches map[string]trace.Span        // open batch spans by batch id
	sent    map[string]trace.SpanContext // submitted batches' spans, for their deliveries' links
}

// New returns the telemetry of a run of job through the providers (the SDK's, or the API's no-op
// ones). It fails only when an instrument cannot be created.
func New(tp trace.TracerProvider, mp metric.MeterProvider, job string, version string) (*Telemetry, error) {
	in, err := newInstruments(mp.Meter(ScopeName, metric.WithInstrumentationVersion(version)))
	if err != nil {
		return nil, fmt.Errorf("creating the metrics: %w", err)
	}
	return &Telemetry{tracer: tp.Tracer(ScopeName, trace.WithInstrumentationVersion(version)), job: keyJob.String(job), in: in,
		batches: map[string]trace.Span{}, sent: map[string]trace.SpanContext{}}, nil
}

// Run starts the run's span (the root of the run's trace); end ends it with the run's report,
// its outcome (as the runs table records it) and error, and counts the run.
func (t *Telemetry) Run(ctx context.Context, shard string) (context.Context, func(rep *report.Report, outcome string, err error)) {
	if t == nil {
		return ctx, func(*report.Report, string, error) {}
	}
	start := time.Now()
	attrs := []attribute.KeyValue{t.job}
	if shard != "" {
		attrs = append(attrs, keyShard.String(shard))
	}
	ctx, span := t.tracer.Start(ctx, "run "+t.job.Value.AsString(), trace.WithAttributes(attrs...))
	return ctx, func(rep *report.Report, outcome string, err error) {
		if rep != nil {
			span.SetAttributes(keyEpisodes.Int(rep.Episodes), keyEntities.Int(rep.Entities), keyFacts.Int(rep.Facts),
				keyFailedUnits.Int(rep.FailedUnits), keyQuarantined.Int(rep.Quarantined),
				keyLLMCalls.Int(rep.LLM.Calls), keyLLMCacheHits.Int(rep.LLM.CacheHits),
				keyInputTokens.Int(rep.LLM.PromptTokens), keyOutputTokens.Int(rep.LLM.CompletionTokens),
				keyCachedTokens.Int(rep.LLM.CachedPromptTokens), keyCost.Float64(rep.LLM.CostUSD))
			if rep.StoppedAt != "" {
				span.SetAttributes(keyStoppedAt.String(rep.StoppedAt))
			}
		}
		span.SetAttributes(keyRunOutcome.String(outcome))
		fail(span, err)
		t.endBatches()
		span.End()
		set := metric.WithAttributeSet(attribute.NewSet(t.job, keyRunOutcome.String(outcome)))
		t.in.runs.Add(context.WithoutCancel(ctx), 1, set)
		t.in.runDuration.Record(context.WithoutCancel(ctx), time.Since(start).Seconds(), set)
	}
}

// Within is ctx with the span of from (the run's, from Run): the run's spans go on in a context
// that does not derive from Run's.
func (t *Telemetry) Within(ctx, from context.Context) context.Context {
	if t == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, trace.SpanFromContext(from))
}

// Stage starts the span of a stage whose key (stages.Stage.Key: its options and the versions of
// the tasks it asks) is key, which the span carries hashed as the stage's version; end ends it
// with the stage's counts and error.
func (t *Telemetry) Stage(ctx context.Context, stage, key string) (context.Context, func(st report.Stats, err error)) {
	if t == nil {
		return ctx, func(report.Stats, error) {}
	}
	attrs := []attribute.KeyValue{keyStage.String(stage)}
	if key != "" {
		attrs = append(attrs, keyStageKey.String(stages.Fingerprint(key)))
	}
	ctx, span := t.tracer.Start(ctx, "stage "+stage, trace.WithAttributes(attrs...))
	t.mu.Lock()
	t.stage = span.SpanContext()
	t.mu.Unlock()
	return ctx, func(st report.Stats, err error) {
		t.mu.Lock()
		t.stage = trace.SpanContext{}
		t.mu.Unlock()
		span.SetAttributes(keyUnits.Int(st.Units), keySkipped.Int(st.Skipped), keyFailed.Int(st.Failed))
		if st.Waves > 0 {
			span.SetAttributes(keyWaves.Int(st.Waves), keyPending.Int(st.Pending))
		}
		fail(span, err)
		span.End()
	}
}

// endBatches ends the spans of the batches still filling when the run ends (it stopped before
// submitting them: the next run asks their requests again).
func (t *Telemetry) endBatches() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, span := range t.batches {
		span.SetAttributes(keyBatchState.String("not_submitted"))
		span.End()
		delete(t.batches, id)
	}
}

// stageContext is ctx with the running stage's span as its parent (the run's when none runs).
func (t *Telemetry) stageContext(ctx context.Context) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stage.IsValid() {
		return ctx
	}
	return trace.ContextWithSpanContext(ctx, t.stage)
}

// fail marks span failed with err (nil: nothing): its error.type, its status and, unless the
// error may quote an LLM answer or the request (a bad answer, a failed unit, a request the
// provider refused: their class only), its text as an exception event. Prompts and answers
// never go into spans.
func fail(span trace.Span, err error) {
	if err == nil {
		return
	}
	class := errorType(err)
	span.SetAttributes(keyErrorType.String(class))
	var f *stages.Failure
	if transport.IsBadAnswer(err) || errors.As(err, &f) {
		span.SetStatus(codes.Error, class)
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, err.Error())
}

// errorType is the low-cardinality class of err (error.type): the HTTP status of a request the
// provider refused, else a name of backfill's.
func errorType(err error) string {
	var status *transport.StatusError
	var auth *transport.AuthError
	var quota *transport.QuotaError
	var transient *transport.TransientError
	var f *stages.Failure
	var invalid *wire.ValidationError
	switch {
	case errors.As(err, &f), errors.As(err, &invalid):
		return "invalid_answer"
	case errors.As(err, &status):
		return strconv.Itoa(status.Status)
	case errors.As(err, &auth):
		return strconv.Itoa(auth.Status)
	case errors.As(err, &quota):
		return "insufficient_quota"
	case errors.Is(err, pacing.ErrBudgetExceeded):
		return "budget_exceeded"
	case errors.Is(err, stages.ErrInterrupted), errors.Is(err, pacing.ErrStopped):
		return "interrupted"
	case errors.Is(err, stages.ErrTooManyFailed):
		return "too_many_failed"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &transient):
		if transient.Status != 0 {
			return strconv.Itoa(transient.Status)
		}
		return "network"
	}
	return "_OTHER"
}
