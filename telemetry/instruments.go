package telemetry

import (
	"errors"

	"go.opentelemetry.io/otel/metric"
)

// Bucket boundaries of the GenAI client conventions' histograms.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	// longBuckets time what takes longer than a request: units, sink batches, runs (seconds).
	longBuckets = []float64{0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 12 * 3600}
)

// instruments are the run's metrics (see the package doc for what each counts).
type instruments struct {
	tokenUsage    metric.Int64Histogram
	duration      metric.Float64Histogram
	requests      metric.Int64Counter
	cacheHits     metric.Int64Counter
	tokens        metric.Int64Counter
	cost          metric.Float64Counter
	retries       metric.Int64Counter
	invalid       metric.Int64Counter
	truncated     metric.Int64Counter
	salvaged      metric.Int64Counter
	queueWait     metric.Float64Histogram
	units         metric.Int64Counter
	unitDuration  metric.Float64Histogram
	batches       metric.Int64Counter
	sinkRows      metric.Int64Counter
	sinkBatch     metric.Float64Histogram
	verifications metric.Int64Counter
	runs          metric.Int64Counter
	runDuration   metric.Float64Histogram
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var errs []error
	i64 := func(name, unit, desc string) metric.Int64Counter {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	seconds := func(name, desc string, buckets []float64) metric.Float64Histogram {
		h, err := m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc), metric.WithExplicitBucketBoundaries(buckets...))
		errs = append(errs, err)
		return h
	}
	var err error
	in.tokenUsage, err = m.Int64Histogram(metricTokenUsage, metric.WithUnit("{token}"),
		metric.WithDescription("Input and output tokens of each answer (a request answered online, or a provider batch's answer delivered)"),
		metric.WithExplicitBucketBoundaries(tokenBuckets...))
	errs = append(errs, err)
	in.duration = seconds(metricDuration, "Duration of each LLM and embeddings call, its retries included", durationBuckets)
	in.requests = i64(metricRequests, "{request}", "Requests sent to the provider, retries included (the run report's llm.calls)")
	in.cacheHits = i64(metricCacheHits, "{call}", "Calls answered from the checkpoint's LLM cache, with no request")
	in.tokens = i64(metricTokens, "{token}", "Tokens by gen_ai.token.type: input, output, and the parts of them priced apart (cached_input, reasoning)")
	in.cost, err = m.Float64Counter(metricCost, metric.WithUnit("{USD}"), metric.WithDescription("Cost of the answers at the job's price table (llm.prices)"))
	errs = append(errs, err)
	in.retries = i64(metricRetries, "{request}", "Requests beyond the first of a call: transport, validation and length retries")
	in.invalid = i64(metricInvalid, "{answer}", "Answers that failed the task's schema")
	in.truncated = i64(metricTruncated, "{answer}", "Answers cut at max_tokens")
	in.salvaged = i64(metricSalvaged, "{answer}", "Cut answers kept up to their last complete list item")
	in.queueWait = seconds(metricQueueWait, "Time a request waited for the run's pacer (llm.concurrency, rpm, tpm) before it was sent", durationBuckets)
	in.units = i64(metricUnits, "{unit}", "Units of a stage by backfill.unit.outcome: done, failed, skipped, pending, drained, error")
	in.unitDuration = seconds(metricUnitDuration, "Duration of each unit run", longBuckets)
	in.batches = i64(metricBatches, "{batch}", "Provider batches by backfill.batch.state: submitted, dropped, failed to submit, delivered, lost")
	in.sinkRows = i64(metricSinkRows, "{row}", "Rows the graph-database sink committed, by backfill.sink.kind")
	in.sinkBatch = seconds(metricSinkBatch, "Duration of each write transaction of the sink, its retries included", longBuckets)
	in.verifications = i64(metricVerifications, "{chunk}", "Count verifications of loaded chunks of groups by backfill.sink.verification: ok or mismatch")
	in.runs = i64(metricRuns, "{run}", "Runs by backfill.run.outcome: ok, failed, interrupted, budget_stopped, pending")
	in.runDuration = seconds(metricRunDuration, "Duration of each run", longBuckets)
	return in, errors.Join(errs...)
}
