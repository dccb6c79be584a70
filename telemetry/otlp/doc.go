// Package otlp sets up the OpenTelemetry SDK and its OTLP exporters from the standard OTEL_*
// environment variables, for the commands that run a job (the composition root: no other
// package imports the SDK).
//
// Contract:
//   - Nothing is started and nothing costs unless an OTLP endpoint is set: Setup returns nil when
//     neither OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT /
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is set (unlike the SDK's default of localhost), or
//     OTEL_SDK_DISABLED is true. A signal is exported when its endpoint (or the common one) is set
//     and OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER is unset, "otlp" or not "none".
//   - The protocol of a signal is OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL, else
//     OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf: http/protobuf and grpc for both signals,
//     http/json for traces only (the Go SDK's metric exporter has no JSON encoding). Any other
//     value, an exporter other than otlp or none, or a sampler the SDK does not know
//     (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG) is an error naming the variable: the
//     configuration is never ignored silently.
//   - The exporters read the rest of their variables themselves (endpoint, headers, timeout,
//     compression, certificates, insecure), as do the SDK's span batcher (OTEL_BSP_*), metric
//     reader (OTEL_METRIC_EXPORT_INTERVAL, _TIMEOUT) and sampler; the resource is
//     service.name=backfill and service.version, then OTEL_SERVICE_NAME and
//     OTEL_RESOURCE_ATTRIBUTES over them, and host.name.
//   - TRACEPARENT (W3C trace context in an environment variable, as a scheduler may pass it)
//     makes the run's span a child of the caller's (Exporting.Context).
//   - Errors of the SDK and its exporters are logged (a warning per error) with the values of
//     OTEL_EXPORTER_OTLP_*HEADERS redacted: headers may carry keys, and never reach a log.
package otlp
