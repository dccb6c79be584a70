package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
)

// Units is the observer of the stages' units and of the sink's write transactions (a
// stages.Observer that is a graphdb.Observer too: the load stage hands it to its loader), nil
// when t is.
func (t *Telemetry) Units() stages.Observer {
	if t == nil {
		return nil
	}
	return &units{t: t}
}

// units watches units and sink batches.
type units struct {
	t    *Telemetry
	sets attrSets
}

var _ graphdb.Observer = (*units)(nil)

// Unit starts a unit's span and, when it ends, counts it by outcome (its StoreUnits: an
// extraction window counts its episodes, as the report does) and times it.
func (u *units) Unit(ctx context.Context, stage string, unit stages.Unit) (context.Context, func(string, error)) {
	start := time.Now()
	attrs := []attribute.KeyValue{keyStage.String(stage), keyUnit.String(unit.Key), keyGroup.String(unit.Group),
		keyFingerprint.String(unit.Fingerprint)}
	if unit.Stored != "" {
		attrs = append(attrs, keyStored.String(unit.Stored))
	}
	ctx, span := u.t.tracer.Start(ctx, "unit "+stage, trace.WithAttributes(attrs...))
	return ctx, func(outcome string, err error) {
		span.SetAttributes(keyUnitOutcome.String(outcome))
		fail(span, err)
		span.End()
		set := u.outcome(stage, outcome)
		bg := context.WithoutCancel(ctx)
		u.t.in.units.Add(bg, int64(unit.StoreUnits()), set)
		u.t.in.unitDuration.Record(bg, time.Since(start).Seconds(), set)
	}
}

// Units counts n units of stage that ended with outcome without a span.
func (u *units) Units(ctx context.Context, stage, outcome string, n int) {
	u.t.in.units.Add(context.WithoutCancel(ctx), int64(n), u.outcome(stage, outcome))
}

// outcome is the attribute set of a stage's units of an outcome.
func (u *units) outcome(stage, outcome string) metric.MeasurementOption {
	return u.sets.get(stage+"\x00"+outcome, func() attribute.Set {
		return attribute.NewSet(u.t.job, keyStage.String(stage), keyUnitOutcome.String(outcome))
	})
}

// Batch starts the span of a sink's write transaction (a GenAI memory operation: memory records
// created or updated, upsert_memory) and, when it ends, counts its rows once committed.
func (u *units) Batch(ctx context.Context, b graphdb.Batch) func(int, error) {
	start := time.Now()
	kind := "node"
	if b.Edges {
		kind = "relationship"
	}
	store := b.Graph
	if store == "" {
		store = b.Dialect // the server's default database
	}
	_, span := u.t.tracer.Start(ctx, operationUpsertMemory, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		keyOperation.String(operationUpsertMemory), keyMemoryStore.String(store), keyMemoryRecords.Int(b.Rows),
		keyDBSystem.String(b.Dialect), keySinkKind.String(kind), keySinkBytes.Int(b.Bytes)))
	return func(retries int, err error) {
		if retries > 0 {
			span.SetAttributes(keySinkRetries.Int(retries))
		}
		fail(span, err)
		span.End()
		set := u.sets.get("sink\x00"+b.Dialect+"\x00"+kind, func() attribute.Set {
			return attribute.NewSet(u.t.job, keyDBSystem.String(b.Dialect), keySinkKind.String(kind))
		})
		bg := context.WithoutCancel(ctx)
		u.t.in.sinkBatch.Record(bg, time.Since(start).Seconds(), set)
		if err == nil {
			u.t.in.sinkRows.Add(bg, int64(b.Rows), set)
		}
	}
}

// Verified counts a chunk's verification and notes it on the span of ctx.
func (u *units) Verified(ctx context.Context, dialect string, groups int, mismatch bool) {
	result := "ok"
	if mismatch {
		result = "mismatch"
	}
	trace.SpanFromContext(ctx).AddEvent("verified", trace.WithAttributes(keyVerification.String(result), keyGroups.Int(groups)))
	u.t.in.verifications.Add(context.WithoutCancel(ctx), 1, u.sets.get("verify\x00"+dialect+"\x00"+result, func() attribute.Set {
		return attribute.NewSet(u.t.job, keyDBSystem.String(dialect), keyVerification.String(result))
	}))
}

// attrSets caches the measurement options of attribute sets by a key naming their values, so a
// hot path builds each set once.
type attrSets struct{ m sync.Map }

func (a *attrSets) get(key string, build func() attribute.Set) metric.MeasurementOption {
	if o, ok := a.m.Load(key); ok {
		return o.(metric.MeasurementOption)
	}
	o, _ := a.m.LoadOrStore(key, metric.WithAttributeSet(build()))
	return o.(metric.MeasurementOption)
}
