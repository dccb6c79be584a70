// Package otel tests the run's OpenTelemetry export end to end: the binary runs the demo job
// against the LLM stub and FalkorDB with the OTEL_* variables pointing at a real OpenTelemetry
// Collector (scripts/otelcol.sh: the core distribution's OTLP receiver, the contrib file
// exporter), and the test reads what the collector wrote: the span tree run > stage > unit >
// call with its attributes, sink batches and provider batches linked to their calls, and metric
// totals equal to the run report's. A run without an OTLP endpoint must export nothing. The
// dashboard of deploy/grafana must parse and chart only metrics the run exports.
package otel
