package telemetry

import "go.opentelemetry.io/otel/attribute"

// Attribute keys: the OpenTelemetry semantic conventions' where they name the thing (GenAI
// client spans and metrics, GenAI memory operations, errors, servers, databases), backfill's
// own under backfill.*.
const (
	// GenAI client conventions (semantic-conventions-genai, Development status).
	keyOperation     = attribute.Key("gen_ai.operation.name")
	keyProvider      = attribute.Key("gen_ai.provider.name")
	keyRequestModel  = attribute.Key("gen_ai.request.model")
	keyMaxTokens     = attribute.Key("gen_ai.request.max_tokens")
	keyTemperature   = attribute.Key("gen_ai.request.temperature")
	keyOutputType    = attribute.Key("gen_ai.output.type")
	keyPromptName    = attribute.Key("gen_ai.prompt.name") // the task: the prompt template asked
	keyFinishReasons = attribute.Key("gen_ai.response.finish_reasons")
	keyInputTokens   = attribute.Key("gen_ai.usage.input_tokens")
	keyOutputTokens  = attribute.Key("gen_ai.usage.output_tokens")
	keyCachedTokens  = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	keyReasonTokens  = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	keyTokenType     = attribute.Key("gen_ai.token.type")
	keyMemoryStore   = attribute.Key("gen_ai.memory.store.id")
	keyMemoryRecords = attribute.Key("gen_ai.memory.record.count")
	keyErrorType     = attribute.Key("error.type")
	keyServerAddress = attribute.Key("server.address")
	keyServerPort    = attribute.Key("server.port")
	keyDBSystem      = attribute.Key("db.system.name")
	keyJob           = attribute.Key("backfill.job")
	keyShard         = attribute.Key("backfill.shard")
	keyRunOutcome    = attribute.Key("backfill.run.outcome")
	keyStoppedAt     = attribute.Key("backfill.run.stopped_at")
	keyStage         = attribute.Key("backfill.stage")
	keyStageKey      = attribute.Key("backfill.stage.key") // the stage's version: its options and task versions (stages.Key)
	keyUnit          = attribute.Key("backfill.unit")
	keyGroup         = attribute.Key("backfill.group")
	keyFingerprint   = attribute.Key("backfill.unit.fingerprint")
	keyStored        = attribute.Key("backfill.unit.stored_fingerprint")
	keyUnitOutcome   = attribute.Key("backfill.unit.outcome")
	keyUnits         = attribute.Key("backfill.stage.units")
	keySkipped       = attribute.Key("backfill.stage.skipped")
	keyFailed        = attribute.Key("backfill.stage.failed")
	keyWaves         = attribute.Key("backfill.stage.waves")
	keyPending       = attribute.Key("backfill.stage.pending")
	keyCallOutcome   = attribute.Key("backfill.llm.outcome")
	keyRequests      = attribute.Key("backfill.llm.requests")
	keyRetries       = attribute.Key("backfill.llm.retries")
	keyCost          = attribute.Key("backfill.llm.cost_usd")
	keyBatchMode     = attribute.Key("backfill.llm.batch")
	keyTexts         = attribute.Key("backfill.embeddings.texts")
	keyBatchID       = attribute.Key("backfill.batch.id")
	keyBatchKind     = attribute.Key("backfill.batch.kind")
	keyBatchProvider = attribute.Key("backfill.batch.provider_id")
	keyBatchState    = attribute.Key("backfill.batch.state")
	keyBatchRequests = attribute.Key("backfill.batch.requests")
	keyBatchBytes    = attribute.Key("backfill.batch.bytes")
	keyBatchEstimate = attribute.Key("backfill.batch.estimated_usd")
	keyBatchAnswers  = attribute.Key("backfill.batch.answers")
	keyBatchInvalid  = attribute.Key("backfill.batch.invalid")
	keyBatchErrors   = attribute.Key("backfill.batch.errors")
	keyBatchUndone   = attribute.Key("backfill.batch.unfinished")
	keySinkKind      = attribute.Key("backfill.sink.kind") // node or relationship
	keySinkBytes     = attribute.Key("backfill.sink.bytes")
	keySinkRetries   = attribute.Key("backfill.sink.retries")
	keyVerification  = attribute.Key("backfill.sink.verification")
	keyGroups        = attribute.Key("backfill.sink.groups")
	keyEpisodes      = attribute.Key("backfill.episodes")
	keyEntities      = attribute.Key("backfill.entities")
	keyFacts         = attribute.Key("backfill.facts")
	keyFailedUnits   = attribute.Key("backfill.failed_units")
	keyQuarantined   = attribute.Key("backfill.quarantined")
	keyLLMCalls      = attribute.Key("backfill.llm.calls")
	keyLLMCacheHits  = attribute.Key("backfill.llm.cache_hits")
)

// Metric names: the GenAI client conventions' two, backfill's own under backfill.*.
const (
	metricTokenUsage    = "gen_ai.client.token.usage"
	metricDuration      = "gen_ai.client.operation.duration"
	metricRequests      = "backfill.llm.requests"
	metricCacheHits     = "backfill.llm.cache_hits"
	metricTokens        = "backfill.llm.tokens"
	metricCost          = "backfill.llm.cost"
	metricRetries       = "backfill.llm.retries"
	metricInvalid       = "backfill.llm.invalid_answers"
	metricTruncated     = "backfill.llm.truncated"
	metricSalvaged      = "backfill.llm.salvaged"
	metricQueueWait     = "backfill.llm.queue.wait"
	metricUnits         = "backfill.units"
	metricUnitDuration  = "backfill.unit.duration"
	metricBatches       = "backfill.llm.batches"
	metricSinkRows      = "backfill.sink.rows"
	metricSinkBatch     = "backfill.sink.batch.duration"
	metricVerifications = "backfill.sink.verifications"
	metricRuns          = "backfill.runs"
	metricRunDuration   = "backfill.run.duration"
)

// Values of gen_ai.token.type: the conventions' input and output, and backfill's two parts of
// them that are priced apart (backfill.llm.tokens only).
const (
	tokenInput       = "input"
	tokenOutput      = "output"
	tokenCachedInput = "cached_input" // part of input: served from the provider's prompt cache
	tokenReasoning   = "reasoning"    // part of output
)

// Values of gen_ai.operation.name and gen_ai.output.type besides the llm package's.
const (
	operationUpsertMemory = "upsert_memory" // a sink batch: memory records created or updated
	outputJSON            = "json"
)

// ProviderOffline is gen_ai.provider.name of the offline responder (llm.provider: offline);
// llm.provider openai is "openai".
const ProviderOffline = "backfill.offline"

// Provider is gen_ai.provider.name of a job's llm.provider or embedder.provider: "openai" (an
// OpenAI-compatible API) or ProviderOffline.
func Provider(jobProvider string) string {
	if jobProvider == "offline" {
		return ProviderOffline
	}
	return jobProvider
}
