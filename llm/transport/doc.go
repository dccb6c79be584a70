// Package transport sends one request to an OpenAI-compatible provider: Poster posts a JSON
// request through the run's pacing.Pacer and pacing.Budget with retries, and makes the Files and
// Batch API's exchanges (Exchange). Its typed errors tell a failure that stops the run
// (IsFatal) from one worth retrying (IsRetryable) and one that fails only the call
// (StatusError). NewInProcessHTTPClient serves an http.Handler in the same process (the offline
// provider).
//
// Contract:
//   - Poster retries 408/409/429/5xx, network errors and per-attempt timeouts with exponential
//     backoff and full jitter, honouring Retry-After(-Ms), up to MaxAttempts; AuthError and
//     QuotaError are fatal at once (IsFatal), TransientError is retryable (IsRetryable). The
//     http.Client under it must not retry.
//   - Every attempt of Post reserves its estimated cost from the Budget, then holds one Pacer
//     slot; a refused reservation waits for the admitted requests (Budget.Wait) and returns the
//     *pacing.BudgetError. Exchange holds no slot and reserves nothing: files and batches are
//     not model calls.
//   - A 4xx other than 401, 403, 408, 409 and 429 is a *StatusError: it fails the call, not the
//     run.
//   - The API key is sent only in the Authorization header and never appears in an error or a
//     log line (Redact).
package transport
