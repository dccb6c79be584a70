package otlp

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/stages"
	"github.com/tkgraph/backfill/telemetry"
)

// BenchmarkUnitWithCall is the CPU of what a unit that makes one LLM call costs the telemetry:
// the unit's span, the call's span and its usage counted, exported over OTLP/HTTP to a
// receiver in the process that discards them (the export's encoding and sending included);
// with metrics only, without the spans.
func BenchmarkUnitWithCall(b *testing.B) {
	b.Run("traces and metrics", func(b *testing.B) { benchUnitWithCall(b, "") })
	b.Run("metrics only", func(b *testing.B) { benchUnitWithCall(b, "none") })
}

func benchUnitWithCall(b *testing.B, traces string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	for _, k := range otelVars {
		b.Setenv(k, "")
	}
	b.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	b.Setenv("OTEL_TRACES_EXPORTER", traces)
	e, err := Setup(context.Background(), nil, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	tel, err := telemetry.New(e.Traces, e.Metrics, "bench", "bench")
	if err != nil {
		b.Fatal(err)
	}
	ctx, endStage := tel.Stage(context.Background(), "extract", "k")
	units, chat := tel.Units(), tel.Client(calls.OperationChat, "openai", "gpt-4o-mini", "http://127.0.0.1:1/v1")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		uctx, end := units.Unit(ctx, "extract", stages.Unit{Key: "0b6c3e0a-6c1f-5e59-8d0e-3b1f2c4d5e6f", Group: "conv-26",
			Fingerprint: "3032fb6b8f41d128e7fb3cbde6041a85"})
		_, endCall := chat.Call(uctx, calls.CallInfo{Operation: calls.OperationChat, Stage: "extract", Task: "extract_graph", MaxTokens: 600})
		chat.Waited("extract", "extract_graph", 0)
		chat.Counted("extract", "extract_graph", pacing.StageUsage{Calls: 1, MaxInFlight: 3})
		u := pacing.StageUsage{PromptTokens: 820, CompletionTokens: 27, CostUSD: 0.0001}
		chat.Counted("extract", "extract_graph", u)
		u.Calls = 1
		endCall(calls.CallEnd{Outcome: calls.CallOK, Usage: u, Finish: "stop"})
		end(stages.UnitDone, nil)
	}
	b.StopTimer()
	endStage(stages.Stats{}, nil)
	_ = e.Shutdown(context.Background())
}
