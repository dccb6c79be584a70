// Package pacing decides what the requests of a run may start and cost: the Pacer every chat
// and embedding request passes, the Budget that caps their cost, the price table, and the usage
// counters the clients report.
//
// Contract:
//   - One Pacer per run gates every chat and embedding request: at most Concurrency in flight,
//     which is the one meaning of the job's llm.concurrency (requests in flight, chat and
//     embeddings together; the stages' and the embedder's worker pools take the same size and
//     wait on the pacer, so they never add requests),
//     an RPM bucket (burst 1, at 99% of rpm/60 per second, so no 60-second window sees more
//     than RPM starts) and a TPM bucket charged with a request's estimated tokens
//     (wire.EstimateTokens) before it starts and corrected with the reported usage after it. Once PacerOptions.Stop closes it refuses every
//     new request with ErrStopped (a draining run starts no new call); requests in flight
//     finish.
//   - Cost is usage priced by the model's Price (Prices.Lookup: exact name, dated snapshot or
//     router prefix); reasoning tokens are billed as output, provider-cached prompt tokens at
//     the cached price. Cache hits cost 0. A Budget shared by the run reserves each request's
//     estimated cost; once it would pass the limit it refuses every later request, Wait lets
//     the admitted ones finish (their answers are cached), and the refusal is a *BudgetError
//     (errors.Is ErrBudgetExceeded), so a run stops cleanly and resumes without repeating a
//     paid call.
//   - StageUsage counts the calls of one stage (Add books one answer's usage and cost, Sum adds
//     another stage's); Usage is the counters of a run, in total and per stage.
package pacing
