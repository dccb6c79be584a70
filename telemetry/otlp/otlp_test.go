package otlp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
)

// otelVars are every OTEL_* variable Setup or the exporters read; each test starts with all
// of them empty.
var otelVars = []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
	"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "TRACEPARENT", "TRACESTATE"}

func setEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	for _, k := range otelVars {
		t.Setenv(k, kv[k])
	}
}

// With no OTLP endpoint (or the SDK disabled) Setup starts nothing, whatever else is set.
func TestNoEndpointStartsNothing(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=k",
			"OTEL_TRACES_SAMPLER": "always_on", "TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"},
	} {
		setEnv(t, env)
		e, err := Setup(context.Background(), nil, "v", nil)
		if err != nil || e != nil {
			t.Fatalf("%v: Setup = %v, %v; want nothing started", env, e, err)
		}
		if e.Shutdown(context.Background()) != nil || e.Context(context.Background()) == nil {
			t.Fatal("a nil Exporting does not do nothing")
		}
	}
}

// A value backfill cannot honour is an error naming the variable, never ignored.
func TestUnsupportedValuesAreErrors(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/xml"}, "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "thrift"}, "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"},
		{map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, "no JSON encoding"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "OTEL_TRACES_EXPORTER"},
		{map[string]string{"OTEL_METRICS_EXPORTER": "prometheus"}, "OTEL_METRICS_EXPORTER"},
		{map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, "OTEL_TRACES_SAMPLER"},
		{map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, "OTEL_TRACES_SAMPLER_ARG"},
	} {
		c.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:1"
		setEnv(t, c.env)
		e, err := Setup(context.Background(), nil, "v", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want one naming %s", c.env, err, c.want)
		}
		_ = e.Shutdown(context.Background())
	}
	// http/json is the trace exporter's: with metrics off it is taken.
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
		"OTEL_METRICS_EXPORTER": "none"})
	e, err := Setup(context.Background(), nil, "v", nil)
	if err != nil || e == nil || e.Signals != "traces http/json" {
		t.Fatalf("traces over http/json: %v, %v", e, err)
	}
	if _, ok := e.Metrics.(noop.MeterProvider); !ok {
		t.Fatal("metrics are exported with OTEL_METRICS_EXPORTER=none")
	}
	_ = e.Shutdown(context.Background())
}

// receiver is an OTLP/HTTP endpoint that answers 400 with a body quoting the request's
// api-key header (a proxy that echoes what it got).
type receiver struct {
	mu    sync.Mutex
	paths []string
	keys  []string
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	r.mu.Lock()
	r.paths = append(r.paths, req.URL.Path)
	r.keys = append(r.keys, req.Header.Get("api-key"))
	r.mu.Unlock()
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, "rejected request with api-key "+req.Header.Get("api-key"))
}

// The exporters send to the endpoint with the headers of OTEL_EXPORTER_OTLP_HEADERS; an error
// that quotes a header's value is logged with the value redacted.
func TestExportsWithHeadersAndRedactsThem(t *testing.T) {
	rcv := &receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s3cr3t-value",
		"OTEL_SERVICE_NAME": "svc"})
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	e, err := Setup(context.Background(), nil, "v1", log)
	if err != nil || e == nil {
		t.Fatalf("Setup = %v, %v", e, err)
	}
	if e.Signals != "traces http/protobuf, metrics http/protobuf" {
		t.Fatalf("signals %q", e.Signals)
	}
	_, span := e.Traces.Tracer("t").Start(context.Background(), "s")
	span.End()
	c, _ := e.Metrics.Meter("t").Int64Counter("c")
	c.Add(context.Background(), 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = e.Shutdown(ctx)
	rcv.mu.Lock()
	paths, keys := strings.Join(rcv.paths, " "), strings.Join(rcv.keys, " ")
	rcv.mu.Unlock()
	if !strings.Contains(paths, "/v1/traces") || !strings.Contains(paths, "/v1/metrics") || !strings.Contains(keys, "s3cr3t-value") {
		t.Fatalf("received %q with keys %q", paths, keys)
	}
	mu.Lock()
	text := logs.String()
	mu.Unlock()
	if strings.Contains(text, "s3cr3t") {
		t.Fatalf("a header value reached the log: %s", text)
	}
	if !strings.Contains(text, "[redacted]") {
		t.Fatalf("the export errors were not logged: %q", text)
	}
}

// TRACEPARENT makes the run's span the caller's child.
func TestTraceparentIsTheParent(t *testing.T) {
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces",
		"TRACEPARENT": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"})
	e, err := Setup(context.Background(), nil, "v", nil)
	if err != nil || e == nil || e.Signals != "traces http/protobuf" {
		t.Fatalf("Setup = %v, %v", e, err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	}()
	_, span := e.Traces.Tracer("t").Start(e.Context(context.Background()), "run")
	defer span.End()
	if got := span.SpanContext().TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Fatalf("trace id %s, want TRACEPARENT's", got)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
