// Package llm is the client side of the LLM layer: the OpenAI-compatible wire types, the task
// contract (tasks.go), the versioned prompt templates, the answer schemas and their validator,
// the chat Client and the HTTP machinery (Poster, Gate) that the embeddings client shares.
//
// Contract:
//   - Every task is one prompt pair in prompts/ (<task>.system.tmpl, <task>.user.tmpl), one
//     strict JSON schema generated from its output type, sent as response_format json_schema
//     named after the task. A rendered user message always ends with InputFence, the task input
//     as json.Marshal gives it, and "\n```".
//   - Prompts.Hash(task) changes whenever either template of the task (or the message format)
//     changes; a prompts directory overrides embedded templates file by file.
//   - Client.Call answers from the Cache when the key (model, rendered messages, schema name and
//     text, temperature) is known; it never caches an answer that failed validation. Answers
//     failing the schema are retried with the error fed back, a bounded number of times.
//   - Requests in flight are bounded by a Gate. 408/409/429/5xx and network errors are retried
//     with exponential backoff and jitter, honouring Retry-After; AuthError and QuotaError are
//     fatal at once (IsFatal), TransientError is retryable (IsRetryable).
//   - The API key is sent only in the Authorization header and never appears in an error.
//   - Usage counts requests, cache hits, tokens, retries and the peak in flight, per stage.
package llm
