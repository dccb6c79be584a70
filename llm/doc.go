// Package llm is the chat client of the LLM layer: Client, with its cache, validation retries,
// salvage, max_tokens rule and usage per stage. What goes on the wire (tasks, schemas, prompts,
// requests and answers) is package llm/wire; what a request may start and cost (Pacer, Budget,
// prices, usage) is llm/pacing; how one request is sent and retried is llm/transport.
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
//   - Client.Call answers from the Cache when the key (model, rendered messages, schema name and
//     text, temperature, response format, frequency penalty when set) is known; it never caches
//     an answer that failed validation (a salvaged answer is cached: closed after its last
//     complete item, it passes the schema). Answers failing the schema (or empty) are retried
//     with the error fed back, a bounded number of times; then Call returns a
//     *ValidationError carrying the raw answer.
//     IsBadAnswer tells such an error (or a request the server refused,
//     transport.StatusError) from a failure of the service: it fails the caller's unit, not
//     the run.
//     Client.Estimate renders the same request and reports its size, cost and cache state
//     without sending it.
//
// Batch mode (Client.UseBatches, and embed.Client.UseBatches for embeddings):
//   - A Batcher sends requests through the provider's Files and Batch API (BatchAPI: the OpenAI
//     shape). Call renders, keys and looks up the cache exactly as online; on a miss its request
//     is handed to Batcher.Request, which queues it and returns ErrPending, or polls the batch
//     that carries it (at most once per BatchOptions.Poll) and returns ErrPending while that
//     batch runs, or returns the request's outcome once its batch ended. The caller runs again
//     later (stages.RunStream's waves) and finds the answer in the cache.
//   - Every request line is recorded (BatchStore, the checkpoint store) before its batch's file
//     is uploaded, and every batch at each step (queued, submitting, created with its provider
//     id and state) before anything waits on it; a request is never queued while a row of its
//     key is pending, so a run started again polls the batches it paid for and never submits a
//     request twice. Recover settles what a killed run left half-sent: a batch still queued is
//     dropped, one that was submitting is found at the provider by its metadata (MetaBatch) or
//     dropped. A request's key is BatchKey(endpoint, body, attempt): the custom_id of its line.
//   - Queued lines go to a file on disk (BatchOptions.SpoolDir); a batch is submitted when it
//     reaches MaxRequests lines or MaxBytes bytes, and by Flush.
//   - An ended batch is delivered once: each answer line is validated exactly like an online
//     answer (answerText, checkAnswer; embeddings: one vector per text of the right size); a
//     valid answer goes into the cache under the request's cache key and its row is deleted; an
//     invalid one is recorded (error text, raw answer, finish reason) and replayed to the call,
//     which retries with the recorded error fed back (the same text on every run, so the retry
//     is the same request); an error line, a request the batch left undone and an unreadable
//     line are submitted again, at most MaxRetries times per run, then Exhausted: sent online
//     with FallbackOnline, else the call fails (BatchOutcome.Err). Usage is counted once, at
//     delivery, at the model's batch price (Price.Batch); a batch's estimate is booked on the
//     Budget when its requests are queued and corrected when it is delivered.
//   - Answers, cache keys and TaskVersion are those of online mode: the mode is not part of
//     any fingerprint, so an online run after a batch run pays nothing.
package llm
