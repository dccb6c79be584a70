// Package stub is the LLM stub server behind `backfill llm-stub`: an OpenAI-compatible
// endpoint (POST …/chat/completions, POST …/embeddings) answered by the offline responder
// (package llm/offline), with added latency, deterministic fault injection and counters.
//
// Contract:
//   - Every answer is delayed by Latency ± Jitter (uniform), cut short if the client goes away.
//   - A request is a fault with probability FaultRate. The kinds are 429 with Retry-After and
//     Retry-After-Ms, 500, a dropped connection (no response), a timeout (the request is held
//     for Stall, then 504) and malformed JSON (a 200 whose chat content, or embeddings body, is
//     cut in half). Whether a request faults, and how, is a hash of Seed, the logical request
//     and how many times the stub has seen it, so a run's faults do not depend on arrival
//     order. The logical request is the model, the schema name and the messages with the
//     client's validation feedback removed (llm.StripFeedback), or the embeddings body.
//   - Bad answers (BadRate, BadKinds, BadTasks) are what a weak model writes: a truncated
//     answer (a third of it, finish_reason "length"), a malformed one (half of it) or an empty
//     one, in a valid envelope with its usage. Whether a logical chat request gets one is a
//     hash of Seed and the request alone, so it gets the same bad answer on every attempt and
//     the client's call fails after its retries (a fault, by contrast, goes away on a retry).
//   - No logical request gets more than MaxFaults (default 2) faults in a row, so a client with
//     more attempts and more validation tries than that always gets through (the defaults of
//     package llm: 4 attempts, 3 tries).
//   - GET /stats returns Stats as JSON: calls, tokens, faults, peak in flight, repeated answers
//     (a logical request answered successfully more than once), per-minute call counts and
//     the most calls seen in any sliding Window.
//
// The answers are the offline responder's rule-based ones: a baseline for the mechanics
// (pacing, retries, caching, cost), not a measure of extraction quality.
package stub
