package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/stages"
)

// fixture is a Telemetry over in-memory exporters.
type fixture struct {
	t      *Telemetry
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	tel, err := New(tp, mp, "job1", "test")
	if err != nil {
		t.Fatal(err)
	}
	return fixture{t: tel, spans: spans, reader: reader}
}

// span returns the one ended span named name.
func (f fixture) span(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	for _, s := range f.spans.GetSpans() {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q, want 1", len(found), name)
	}
	return found[0]
}

func attr(s tracetest.SpanStub, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// sum is the total of metric name over the data points whose attributes include want.
func (f fixture) sum(t *testing.T, name string, want ...attribute.KeyValue) float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	match := func(set attribute.Set) bool {
		for _, kv := range want {
			if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
				return false
			}
		}
		return true
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						total += float64(p.Value)
					}
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						total += p.Value
					}
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						total += float64(p.Sum)
					}
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					if match(p.Attributes) {
						total += float64(p.Count)
					}
				}
			}
		}
	}
	return total
}

// A nil Telemetry hands out nil observers and ends that do nothing.
func TestNilTelemetryRecordsNothing(t *testing.T) {
	var tel *Telemetry
	ctx, end := tel.Run(context.Background(), "")
	_, endStage := tel.Stage(ctx, "extract", "k")
	endStage(report.Stats{}, nil)
	end(nil, "ok", nil)
	if tel.Units() != nil || tel.Client(calls.OperationChat, "openai", "m", "") != nil || tel.Batches() != nil {
		t.Fatal("a nil Telemetry handed out an observer")
	}
}

// The spans of a run nest run > stage > unit > call, carry the GenAI and backfill attributes,
// and the metrics count what the observers were told.
func TestRunStageUnitCallTree(t *testing.T) {
	f := newFixture(t)
	ctx, endRun := f.t.Run(context.Background(), "0/2")
	sctx, endStage := f.t.Stage(ctx, "extract", "key-of-extract")
	units := f.t.Units()
	uctx, endUnit := units.Unit(sctx, "extract", stages.Unit{Key: "ep-1", Group: "alice", Fingerprint: "fp1", Stored: "fp0"})
	chat := f.t.Client(calls.OperationChat, "openai", "gpt-4o-mini", "https://api.example.com:8443/v1")
	_, endCall := chat.Call(uctx, calls.CallInfo{Operation: calls.OperationChat, Stage: "extract", Task: "extract_graph", MaxTokens: 500})
	chat.Counted("extract", "extract_graph", pacing.StageUsage{Calls: 1})
	chat.Counted("extract", "extract_graph", pacing.StageUsage{PromptTokens: 900, CachedTokens: 128, CompletionTokens: 60, CostUSD: 0.002})
	endCall(calls.CallEnd{Outcome: calls.CallOK, Usage: pacing.StageUsage{Calls: 1, PromptTokens: 900, CompletionTokens: 60}, Finish: "stop"})
	chat.Counted("extract", "extract_graph", pacing.StageUsage{CacheHits: 1})
	endUnit(stages.UnitDone, nil)
	units.Units(sctx, "extract", stages.UnitSkipped, 3)
	endStage(report.Stats{Units: 1, Skipped: 3}, nil)
	endRun(&report.Report{Episodes: 4, LLM: report.LLM{PromptTokens: 900, CompletionTokens: 60}}, "ok", nil)

	run, stage, unit, call := f.span(t, "run job1"), f.span(t, "stage extract"), f.span(t, "unit extract"), f.span(t, "chat gpt-4o-mini")
	if run.Parent.IsValid() || stage.Parent.SpanID() != run.SpanContext.SpanID() || unit.Parent.SpanID() != stage.SpanContext.SpanID() ||
		call.Parent.SpanID() != unit.SpanContext.SpanID() {
		t.Fatal("the spans do not nest run > stage > unit > call")
	}
	for _, c := range []struct {
		s    tracetest.SpanStub
		key  attribute.Key
		want string
	}{
		{run, keyShard, "0/2"}, {run, keyRunOutcome, "ok"}, {run, keyEpisodes, "4"},
		{stage, keyStageKey, stages.Fingerprint("key-of-extract")}, {stage, keySkipped, "3"},
		{unit, keyUnit, "ep-1"}, {unit, keyGroup, "alice"}, {unit, keyFingerprint, "fp1"}, {unit, keyStored, "fp0"},
		{unit, keyUnitOutcome, "done"},
		{call, keyOperation, "chat"}, {call, keyProvider, "openai"}, {call, keyRequestModel, "gpt-4o-mini"},
		{call, keyPromptName, "extract_graph"}, {call, keyInputTokens, "900"}, {call, keyOutputTokens, "60"},
		{call, keyServerAddress, "api.example.com"}, {call, keyServerPort, "8443"}, {call, keyMaxTokens, "500"},
		{call, keyFinishReasons, `["stop"]`},
	} {
		v, ok := attr(c.s, c.key)
		if !ok || v.Emit() != c.want {
			t.Errorf("%s %s = %q (set %v), want %q", c.s.Name, c.key, v.Emit(), ok, c.want)
		}
	}
	for _, c := range []struct {
		name string
		want float64
		kv   []attribute.KeyValue
	}{
		{metricTokenUsage, 900, []attribute.KeyValue{keyTokenType.String(tokenInput), keyJob.String("job1")}},
		{metricTokenUsage, 60, []attribute.KeyValue{keyTokenType.String(tokenOutput)}},
		{metricTokens, 128, []attribute.KeyValue{keyTokenType.String(tokenCachedInput)}},
		{metricRequests, 1, []attribute.KeyValue{keyPromptName.String("extract_graph"), keyRequestModel.String("gpt-4o-mini")}},
		{metricCacheHits, 1, nil},
		{metricCost, 0.002, []attribute.KeyValue{keyStage.String("extract")}},
		{metricUnits, 1, []attribute.KeyValue{keyUnitOutcome.String(stages.UnitDone)}},
		{metricUnits, 3, []attribute.KeyValue{keyUnitOutcome.String(stages.UnitSkipped)}},
		{metricDuration, 1, nil}, // one call timed
		{metricRuns, 1, []attribute.KeyValue{keyRunOutcome.String("ok")}},
	} {
		if got := f.sum(t, c.name, c.kv...); fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", c.want) {
			t.Errorf("%s %v = %v, want %v", c.name, c.kv, got, c.want)
		}
	}
}

// A unit whose answers stayed bad is an error on its span, with its class and no text: the
// answer it quotes never reaches a span. Other errors keep their text.
func TestErrorsOnSpansKeepAnswersOut(t *testing.T) {
	f := newFixture(t)
	units := f.t.Units()
	_, end := units.Unit(context.Background(), "extract", stages.Unit{Key: "u1"})
	end(stages.UnitFailed, &stages.Failure{Stage: "extract", Unit: "u1", Reason: "secret answer text", Raw: "secret raw"})
	_, end = units.Unit(context.Background(), "resolve", stages.Unit{Key: "g1"})
	end(stages.UnitError, fmt.Errorf("reading store: %w", errors.New("disk full")))
	failed, broken := f.span(t, "unit extract"), f.span(t, "unit resolve")
	if failed.Status.Code != codes.Error || broken.Status.Code != codes.Error {
		t.Fatal("a failed unit's span is not an error")
	}
	if v, _ := attr(failed, keyErrorType); v.AsString() != "invalid_answer" {
		t.Fatalf("error.type = %q", v.AsString())
	}
	for _, s := range []tracetest.SpanStub{failed} {
		text := s.Status.Description
		for _, e := range s.Events {
			text += e.Name + fmt.Sprint(e.Attributes)
		}
		if strings.Contains(text, "secret") {
			t.Fatalf("the span carries the answer: %q", text)
		}
	}
	if !strings.Contains(broken.Status.Description, "disk full") || len(broken.Events) != 1 {
		t.Fatalf("the store error's text is missing: %+v", broken.Status)
	}
}

// A call whose request joined a provider batch links to the batch's span, which ends when the
// batch is submitted; the batch's delivery links to it too.
func TestBatchRequestLinksToItsSubmission(t *testing.T) {
	f := newFixture(t)
	ctx, endStage := f.t.Stage(context.Background(), "extract", "")
	chat := f.t.Client(calls.OperationChat, "openai", "gpt-4o-mini", "")
	obs := f.t.Batches()
	cctx, endCall := chat.Call(ctx, calls.CallInfo{Operation: calls.OperationChat, Stage: "extract", Task: "extract_graph", Batch: true})
	rec := batch.Record{ID: "bf1", Kind: batch.KindChat, State: batch.Queued}
	obs.Opened(cctx, rec) // opened by the call that queued first: still the stage's child
	obs.Queued(cctx, rec.ID)
	endCall(calls.CallEnd{Outcome: calls.CallPending})
	rec.State, rec.ProviderID, rec.Requests = "validating", "batch_abc", 1
	obs.Submitted(ctx, rec, nil)
	rec.State, rec.Answers = batch.Delivered, 1
	end := obs.Delivering(ctx, rec)
	end(rec, nil)
	endStage(report.Stats{}, nil)

	stage, call, sub, del := f.span(t, "stage extract"), f.span(t, "chat gpt-4o-mini"), f.span(t, "batch chat"), f.span(t, "batch chat delivered")
	if sub.Parent.SpanID() != stage.SpanContext.SpanID() {
		t.Fatal("the batch's span is not the stage's child")
	}
	if len(call.Links) != 1 || call.Links[0].SpanContext.SpanID() != sub.SpanContext.SpanID() {
		t.Fatalf("the call's links %v do not name the batch's span", call.Links)
	}
	if len(del.Links) != 1 || del.Links[0].SpanContext.SpanID() != sub.SpanContext.SpanID() {
		t.Fatal("the delivery does not link to the submission")
	}
	if call.Status.Code == codes.Error {
		t.Fatal("a pending call is not an error")
	}
	if v, _ := attr(sub, keyBatchProvider); v.AsString() != "batch_abc" {
		t.Fatalf("batch provider id %q", v.AsString())
	}
	if got := f.sum(t, metricDuration); got != 0 {
		t.Fatalf("a pending call was timed (%v)", got)
	}
	if got := f.sum(t, metricBatches, keyBatchState.String("submitted")); got != 1 {
		t.Fatalf("%v batches counted submitted", got)
	}
}

// A sink batch is an upsert_memory span; its rows count once committed, and verifications
// count by result.
func TestSinkBatches(t *testing.T) {
	f := newFixture(t)
	units := f.t.Units()
	sink, ok := units.(graphdb.Observer)
	if !ok {
		t.Fatal("the units observer does not watch the sink")
	}
	end := sink.Batch(context.Background(), graphdb.Batch{Dialect: "neo4j", Rows: 40, Bytes: 1000, Edges: true})
	end(1, nil)
	end = sink.Batch(context.Background(), graphdb.Batch{Dialect: "neo4j", Graph: "g", Rows: 7})
	end(0, errors.New("broken"))
	sink.Verified(context.Background(), "neo4j", 3, false)
	sink.Verified(context.Background(), "neo4j", 1, true)
	spans := f.spans.GetSpans()
	if len(spans) != 2 || spans[0].Name != operationUpsertMemory {
		t.Fatalf("spans %v", spans)
	}
	if v, _ := attr(spans[0], keyMemoryRecords); v.AsInt64() != 40 {
		t.Fatalf("record count %v", v)
	}
	if v, _ := attr(spans[0], keyMemoryStore); v.AsString() != "neo4j" {
		t.Fatalf("memory store %q, want the dialect for the default database", v.AsString())
	}
	if got := f.sum(t, metricSinkRows, keySinkKind.String("relationship")); got != 40 {
		t.Fatalf("%v relationship rows, want 40", got)
	}
	if got := f.sum(t, metricSinkRows); got != 40 {
		t.Fatalf("%v rows, want 40 (the failed batch does not count)", got)
	}
	if f.sum(t, metricVerifications, keyVerification.String("ok")) != 1 || f.sum(t, metricVerifications, keyVerification.String("mismatch")) != 1 {
		t.Fatal("verifications miscounted")
	}
}

func TestErrorType(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&wire.ValidationError{Task: "x", Err: errors.New("e")}, "invalid_answer"},
		{fmt.Errorf("w: %w", pacing.ErrBudgetExceeded), "budget_exceeded"},
		{stages.ErrInterrupted, "interrupted"},
		{context.Canceled, "canceled"},
		{errors.New("other"), "_OTHER"},
	} {
		if got := errorType(c.err); got != c.want {
			t.Errorf("errorType(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// An extraction window is one unit run, one span, and counts its episodes, as the report's
// units do.
func TestWindowUnitCountsItsEpisodes(t *testing.T) {
	f := newFixture(t)
	units := f.t.Units()
	_, end := units.Unit(context.Background(), "extract", stages.Unit{Key: "ep-1", Size: 4})
	end(stages.UnitDone, nil)
	_, end = units.Unit(context.Background(), "extract", stages.Unit{Key: "ep-5"})
	end(stages.UnitDone, nil)
	if got := f.sum(t, metricUnits, keyUnitOutcome.String(stages.UnitDone)); got != 5 {
		t.Errorf("%s done = %v, want 5 (a window of 4 and an episode alone)", metricUnits, got)
	}
}
