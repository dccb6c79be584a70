// Package stub is the LLM stub server behind `backfill llm-stub`: an OpenAI-compatible
// endpoint (POST …/chat/completions, POST …/embeddings) answered by the offline responder
// (package providers/offline), with added latency, deterministic fault injection and counters.
//
// Contract:
//   - Every answer is delayed by Latency ± Jitter (uniform), cut short if the client goes away.
//   - A request is a fault with probability FaultRate. The kinds are 429 with Retry-After and
//     Retry-After-Ms, 500, a dropped connection (no response), a timeout (the request is held
//     for Stall, then 504) and malformed JSON (a 200 whose chat content, or embeddings body, is
//     cut in half). Whether a request faults, and how, is a hash of Seed, the logical request
//     and how many times the stub has seen it, so a run's faults do not depend on arrival
//     order. The logical request is the model, the schema name and the messages with the
//     client's validation feedback removed (wire.StripFeedback), or the embeddings body.
//   - Bad answers (BadRate, BadKinds, BadTasks) are what a weak model writes: a truncated
//     answer (a third of it, finish_reason "length"), a malformed one (half of it) or an empty
//     one, in a valid envelope with its usage. Whether a logical chat request gets one is a
//     hash of Seed and the request alone, so it gets the same bad answer on every attempt and
//     the client's call fails after its retries (a fault, by contrast, goes away on a retry).
//   - No logical request gets more than MaxFaults (default 2) faults in a row, so a client with
//     more attempts and more validation tries than that always gets through (the defaults of
//     the clients: 4 attempts, 3 tries).
//   - The Files and Batch APIs (POST …/files, GET …/files/{id}[/content], POST and GET …/batches,
//     GET …/batches/{id}, POST …/batches/{id}/cancel) hold files and batches in memory. A batch
//     ends BatchDelay after its creation (lazily, at the first GET after it) and answers each
//     request line as the chat or embeddings endpoint would (bad answers included), except that
//     BatchFailRate of the requests get an error line (HTTP 500), BatchExpireRate of the batches
//     expire with about half of their requests undone (error lines batch_expired) and
//     BatchInvalidRate of the output lines are cut in half; all decided by the seed and the
//     request (a batch's expiry by the seed and the requests it carries, in whatever order), and
//     no request meets more than MaxFaults of these in a row. The stub counts how
//     often each request (its url, custom_id and body) was submitted.
//   - External state that vanishes: BatchLoseRate of the batches answer BatchLoseAfter polls (in
//     progress), then the stub forgets them: GET and cancel answer 404, the list leaves them out,
//     their files are gone. BatchFailedRate of the batches end failed with their reason in
//     errors.data and every request undone; BatchLoseFilesRate end normally but their output
//     and error files answer 404. All decided by the seed and the requests a batch carries; no
//     request is in two lost batches (or batches with lost files), and Stats counts how often
//     the requests of lost batches were submitted in all.
//   - GET /stats returns Stats as JSON: calls, tokens, faults, peak in flight, repeated answers
//     (a logical request answered successfully more than once), per-minute call counts and
//     the most calls seen in any sliding Window.
//
// The answers are the offline responder's rule-based ones: a baseline for the mechanics
// (pacing, retries, caching, cost), not a measure of extraction quality.
package stub
