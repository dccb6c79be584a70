package otlp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Protocols of OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	ProtocolHTTP     = "http/protobuf"
	ProtocolGRPC     = "grpc"
	ProtocolHTTPJSON = "http/json"
)

// ServiceName is the default service.name (OTEL_SERVICE_NAME overrides it).
const ServiceName = "backfill"

// Exporting is the SDK set up from the environment: the providers the run's telemetry uses
// (the no-op ones of a signal not exported) and what Shutdown flushes.
type Exporting struct {
	Traces  trace.TracerProvider
	Metrics metric.MeterProvider
	// Signals names what is exported and how, for a log line ("traces http/protobuf,
	// metrics grpc").
	Signals string
	parent  propagation.MapCarrier
	tp      *sdktrace.TracerProvider
	mp      *sdkmetric.MeterProvider
}

// Setup reads the OTEL_* variables through getenv (os.Getenv when nil) and starts the exporters
// they ask for; it returns nil (and starts nothing) when no OTLP endpoint is set. version is
// service.version; log receives the SDK's errors (slog.Default when nil).
func Setup(ctx context.Context, getenv func(string) string, version string, log *slog.Logger) (*Exporting, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if log == nil {
		log = slog.Default()
	}
	if v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); strings.EqualFold(v, "true") {
		return nil, nil
	}
	traces, err := signal(getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	metrics, err := signal(getenv, "METRICS")
	if err != nil {
		return nil, err
	}
	if metrics == ProtocolHTTPJSON {
		return nil, fmt.Errorf("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL (or OTEL_EXPORTER_OTLP_PROTOCOL) %s: the OpenTelemetry Go SDK's OTLP metric exporter has no JSON encoding; set %s or %s for metrics",
			ProtocolHTTPJSON, ProtocolHTTP, ProtocolGRPC)
	}
	if traces == "" && metrics == "" {
		return nil, nil
	}
	if traces != "" {
		if err := checkSampler(getenv); err != nil {
			return nil, err
		}
	}
	otel.SetErrorHandler(errorLog{log: log, secrets: headerValues(getenv)})
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", ServiceName),
		attribute.String("service.version", version)), resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil {
		return nil, fmt.Errorf("reading OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	e := &Exporting{Traces: tracenoop.NewTracerProvider(), Metrics: metricnoop.NewMeterProvider(), parent: propagation.MapCarrier{}}
	var on []string
	if traces != "" {
		exp, err := traceExporter(ctx, traces)
		if err != nil {
			return nil, fmt.Errorf("starting the OTLP trace exporter (%s): %w", traces, err)
		}
		e.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		e.Traces = e.tp
		on = append(on, "traces "+traces)
	}
	if metrics != "" {
		exp, err := metricExporter(ctx, metrics)
		if err != nil {
			e.Shutdown(ctx)
			return nil, fmt.Errorf("starting the OTLP metric exporter (%s): %w", metrics, err)
		}
		e.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		e.Metrics = e.mp
		on = append(on, "metrics "+metrics)
	}
	e.Signals = strings.Join(on, ", ")
	if tp := getenv("TRACEPARENT"); tp != "" {
		e.parent.Set("traceparent", tp)
		if ts := getenv("TRACESTATE"); ts != "" {
			e.parent.Set("tracestate", ts)
		}
	}
	return e, nil
}

// Context is ctx with the span of TRACEPARENT (when set and valid) as the parent of what starts
// in it.
func (e *Exporting) Context(ctx context.Context) context.Context {
	if e == nil || len(e.parent) == 0 {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, e.parent)
}

// Shutdown exports what is left (the spans queued, the metrics' last collection) and stops the
// exporters; ctx bounds the wait.
func (e *Exporting) Shutdown(ctx context.Context) error {
	if e == nil {
		return nil
	}
	var errs []error
	if e.tp != nil {
		errs = append(errs, e.tp.Shutdown(ctx))
	}
	if e.mp != nil {
		errs = append(errs, e.mp.Shutdown(ctx))
	}
	return errors.Join(errs...)
}

// signal returns the protocol a signal (TRACES, METRICS) is exported with, or "" when it is
// not exported.
func signal(getenv func(string) string, name string) (string, error) {
	exporter := strings.TrimSpace(getenv("OTEL_" + name + "_EXPORTER"))
	switch exporter {
	case "", "otlp":
	case "none":
		return "", nil
	default:
		return "", fmt.Errorf("OTEL_%s_EXPORTER=%q: backfill exports OTLP only (otlp, or none to turn the signal off)", name, exporter)
	}
	if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_"+name+"_ENDPOINT") == "" {
		return "", nil
	}
	key := "OTEL_EXPORTER_OTLP_" + name + "_PROTOCOL"
	p := strings.TrimSpace(getenv(key))
	if p == "" {
		key = "OTEL_EXPORTER_OTLP_PROTOCOL"
		p = strings.TrimSpace(getenv(key))
	}
	switch p {
	case "":
		return ProtocolHTTP, nil
	case ProtocolHTTP, ProtocolGRPC, ProtocolHTTPJSON:
		return p, nil
	}
	return "", fmt.Errorf("%s=%q: want %s, %s or (traces only) %s", key, p, ProtocolHTTP, ProtocolGRPC, ProtocolHTTPJSON)
}

// checkSampler fails on a sampler the SDK would replace by its default with only a log line.
func checkSampler(getenv func(string) string) error {
	s := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	switch s {
	case "", "always_on", "always_off", "parentbased_always_on", "parentbased_always_off":
		return nil
	case "traceidratio", "parentbased_traceidratio":
	default:
		return fmt.Errorf("OTEL_TRACES_SAMPLER=%q: want always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio", s)
	}
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	if arg == "" {
		return nil
	}
	if r, err := strconv.ParseFloat(arg, 64); err != nil || r < 0 || r > 1 {
		return fmt.Errorf("OTEL_TRACES_SAMPLER_ARG=%q: want a ratio from 0 to 1", arg)
	}
	return nil
}

// traceExporter is the OTLP trace exporter of protocol; it reads its other OTEL_EXPORTER_OTLP_*
// variables itself.
func traceExporter(ctx context.Context, protocol string) (sdktrace.SpanExporter, error) {
	if protocol == ProtocolGRPC {
		return otlptracegrpc.New(ctx)
	}
	return otlptracehttp.New(ctx) // http/json too: it reads the protocol variables
}

// metricExporter is the OTLP metric exporter of protocol.
func metricExporter(ctx context.Context, protocol string) (sdkmetric.Exporter, error) {
	if protocol == ProtocolGRPC {
		return otlpmetricgrpc.New(ctx)
	}
	return otlpmetrichttp.New(ctx)
}

// headerValues are the values of the OTLP header variables ("k1=v1,k2=v2"): secrets to redact.
func headerValues(getenv func(string) string) []string {
	var out []string
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
		for _, kv := range strings.Split(getenv(name), ",") {
			if _, v, ok := strings.Cut(kv, "="); ok && strings.TrimSpace(v) != "" {
				v = strings.TrimSpace(v)
				out = append(out, v)
				if u, err := url.QueryUnescape(v); err == nil && u != v { // the exporters decode percent-encoding
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// errorLog logs the SDK's errors with the header values redacted.
type errorLog struct {
	log     *slog.Logger
	secrets []string
}

func (h errorLog) Handle(err error) {
	msg := err.Error()
	for _, s := range h.secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	h.log.Warn("telemetry: exporting failed", "err", msg)
}
