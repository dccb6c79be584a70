// Package llm is the chat client of the LLM layer: Client, with its cache, validation retries,
// salvage, max_tokens rule and usage per stage. What goes on the wire (tasks, schemas, prompts,
// requests and answers) is package llm/wire; what a request may start and cost (Pacer, Budget,
// prices, usage) is llm/pacing; how one request is sent and retried is llm/transport; what the
// cache holds is llm/cache; provider batch mode is llm/batch. The providers (providers/offline,
// providers/stub) import none of these but llm/wire.
//
// Contract:
//   - Every task of wire.Tasks is sent in the client's response format (Options.ResponseFormat,
//     one of wire.Formats) and its answer is always validated locally against the task's schema.
//   - Every request carries max_tokens (Client.MaxTokens: the task's base plus a share of the
//     input's estimated tokens, at most MaxTokensCap, or the job's override). An answer cut at the
//     limit (finish_reason "length") that does not validate is asked again once with twice the
//     limit before it counts as invalid, unless it repeats a list item (a loop): then, as when the
//     last retry is cut too, it is salvaged, kept up to its last complete list item (salvage.go).
//   - Client.TaskVersion(task) hashes everything besides the input that can change a task's
//     answer: model, temperature, frequency penalty, prompt hash, schema and its caps, response
//     format, the max_tokens rule and the salvage rules. It is the one recipe stages put into
//     unit fingerprints; a new request parameter goes into it, not into the stages.
//   - Client.Usage counts, per stage, requests, cache hits, tokens (cached prompt and reasoning
//     tokens apart), retries, invalid answers, truncated and salvaged answers, cost and the peak
//     in flight (pacing.StageUsage).
//   - Client.Call answers from the Cache (cache.Entry) when the key (model, rendered messages, schema name and
//     text, temperature, response format, frequency penalty when set) is known; it never caches
//     an answer that failed validation (a salvaged answer is cached: closed after its last
//     complete item, it passes the schema). Answers failing the schema (or empty) are retried
//     with the error fed back, a bounded number of times; then Call returns a
//     *wire.ValidationError carrying the raw answer.
//     transport.IsBadAnswer tells such an error (or a request the server refused,
//     transport.StatusError) from a failure of the service: it fails the caller's unit, not
//     the run.
//     Client.Estimate renders the same request and reports its size, cost and cache state
//     without sending it.
//
// Telemetry: Client.Observe sets a calls.Observer (package telemetry) that sees every change of the
// usage counters with the stage and task it counts for (so what it sums is what Usage sums, in
// batch mode too) and every call that sends a request or queues one (calls.Observer.Call, ended with
// its outcome and the usage of its requests); a call the cache answers is only counted. It sees
// no prompt and no answer.
//
// Batch mode (Client.UseBatches; package llm/batch does the batches):
//   - Call renders, keys and looks up the cache exactly as online; on a miss its request goes to
//     the Batcher, and Call returns batch.ErrPending until the request's batch has ended, then
//     answers from the cache, where delivery put a valid answer after the same checks as online
//     (answerText, checkAnswer). An invalid batch answer comes back as the recorded error text
//     and is retried with it fed back (the same text on every run, so the retry is the same
//     request and the same batch key); a request whose batch retries are used up goes online
//     with FallbackOnline, else fails the call.
//   - Answers, cache keys and TaskVersion are those of online mode: the mode is not part of
//     any fingerprint, so an online run after a batch run pays nothing.
package llm
