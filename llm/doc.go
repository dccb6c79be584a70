// Package llm is the client side of the LLM layer: the OpenAI-compatible wire types, the task
// contract (tasks.go), the versioned prompt templates, the answer schemas and their validator,
// the chat Client, and the request machinery the embeddings client shares: Poster, Pacer,
// Budget, prices and token estimates.
//
// Contract:
//   - Every task is one prompt pair in prompts/ (<task>.system.tmpl, <task>.user.tmpl), one
//     strict JSON schema generated from its output type, sent in the client's response format
//     (Formats: json_schema named after the task; json_object with the schema and maxLength
//     caps on free-text strings, for llama.cpp; json_object with the schema in the system
//     message). TaskOf recognises the task of a request in every format. The answer is always
//     validated locally; answer fields never share a name with an input field the model reads
//     beside them (a fact's endpoints are "subject" and "object"). A rendered user message always
//     ends with InputFence, the task input as json.Marshal gives it, and "\n```".
//   - Every request carries max_tokens (Client.MaxTokens: the task's base plus a share of the
//     input's estimated tokens, at most MaxTokensCap, or the job's override). An answer cut at the
//     limit (finish_reason "length") that does not validate is asked again once with twice the
//     limit before it counts as invalid.
//   - Prompts.Hash(task) changes whenever either template of the task (or the message format)
//     changes; a prompts directory overrides embedded templates file by file.
//   - Client.TaskVersion(task) hashes everything besides the input that can change a task's
//     answer: model, temperature, prompt hash, schema and its caps, response format and the
//     max_tokens rule. It is the one recipe stages put into unit fingerprints; a new request
//     parameter goes into it, not into the stages.
//   - Client.Call answers from the Cache when the key (model, rendered messages, schema name and
//     text, temperature, response format) is known; it never caches an answer that failed
//     validation. Answers failing the schema (or empty) are retried with the error fed back, a
//     bounded number of times; then Call returns a *ValidationError carrying the raw answer.
//     IsBadAnswer tells such an error (or a request the server refused, *StatusError) from a
//     failure of the service: it fails the caller's unit, not the run.
//     Client.Estimate renders the same request and reports its size, cost and cache state
//     without sending it.
//   - One Pacer per run gates every chat and embedding request: at most Concurrency in flight,
//     an RPM bucket (burst 1, at 99% of rpm/60 per second, so no 60-second window sees more
//     than RPM starts) and a TPM bucket charged with EstimateTokens before a request and
//     corrected with the reported usage after it. Once PacerOptions.Stop closes it refuses every
//     new request with ErrStopped (a draining run starts no new call); requests in flight
//     finish.
//   - Poster retries 408/409/429/5xx, network errors and per-attempt timeouts with exponential
//     backoff and full jitter, honouring Retry-After(-Ms), up to MaxAttempts; AuthError and
//     QuotaError are fatal at once (IsFatal), TransientError is retryable (IsRetryable). The
//     http.Client under it must not retry.
//   - Cost is usage priced by the model's Price (Prices.Lookup: exact name, dated snapshot or
//     router prefix); reasoning tokens are billed as output, provider-cached prompt tokens at
//     the cached price. Cache hits cost 0. A Budget shared by the run reserves each request's
//     estimated cost; once it would pass the limit it refuses every later request, waits for
//     the admitted ones to finish (their answers are cached) and returns *BudgetError
//     (errors.Is ErrBudgetExceeded), so a run stops cleanly and resumes without repeating a
//     paid call.
//   - The API key is sent only in the Authorization header and never appears in an error or a
//     log line.
//   - Usage counts requests, cache hits, tokens (cached prompt and reasoning tokens apart),
//     retries, invalid answers, cost and the peak in flight, per stage.
package llm
