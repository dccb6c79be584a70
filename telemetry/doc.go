// Package telemetry is a run's traces and metrics on the OpenTelemetry API, in the GenAI
// semantic conventions where they name the thing (gen_ai.*) and under backfill.* otherwise. It
// implements the observers the watched packages declare (stages.Observer and graphdb.Observer:
// Units; calls.Observer: Client; batch.Observer: Batches) and holds every attribute and metric
// name (names.go); the SDK and its exporters are set up by telemetry/otlp from the OTEL_*
// variables, and only the commands import that.
//
// Contract:
//   - A nil *Telemetry records nothing and hands out nil observers: the watched code then does
//     nothing but compare a pointer with nil.
//   - One trace per run: Run's span (its end carries the outcome the runs table records and the
//     report's totals) > a span per stage (its key hashed: the stage's version) > a span per unit
//     that runs > a span per call that sends or queues a request ("chat MODEL", "embeddings
//     MODEL", kind client, covering its retries) and, under the load stage, a span per write
//     transaction ("upsert_memory", the GenAI memory convention). A provider batch's span (a
//     child of the stage running) lasts from its first request to its submission; the span of
//     every call whose request it carries links to it, and its delivery's span links to it.
//   - Errors end their span with status error and error.type; the text of an error that may
//     quote an LLM answer or the request (a bad answer, a failed unit, a request the provider
//     refused) never goes into a span. No prompt, answer or episode text does.
//   - Metrics count what the run report counts, fed by the same increments (calls.Observer's
//     Counted): their totals equal the report's (tests/otel checks it against a collector).
//     Every data point carries backfill.job.
package telemetry
