package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/telemetry"
	"github.com/tkgraph/backfill/telemetry/otlp"
)

// telemetryFlush bounds the wait for the last spans and metrics once a run ended (an
// unreachable collector must not hold the command).
const telemetryFlush = 15 * time.Second

// startTelemetry sets up the export of a run of j's traces and metrics from the OTEL_*
// variables (telemetry/otlp). With no OTLP endpoint set it starts nothing and returns a nil
// Telemetry. The context it returns carries TRACEPARENT's span, if any; finish exports what is
// left and stops the exporters.
func startTelemetry(ctx context.Context, j *pipeline.Job) (context.Context, *telemetry.Telemetry, func(), error) {
	v := version().Version
	exp, err := otlp.Setup(ctx, os.Getenv, v, slog.Default())
	if err != nil || exp == nil {
		return ctx, nil, func() {}, err
	}
	t, err := telemetry.New(exp.Traces, exp.Metrics, j.Name, v)
	if err != nil {
		_ = exp.Shutdown(ctx)
		return ctx, nil, func() {}, err
	}
	slog.Info("exporting telemetry over OTLP", "signals", exp.Signals)
	return exp.Context(ctx), t, func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlush)
		defer cancel()
		if err := exp.Shutdown(fctx); err != nil {
			otel.Handle(err) // logged with the OTLP headers redacted
		}
	}, nil
}
