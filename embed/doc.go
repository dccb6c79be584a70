// Package embed turns texts into vectors: the Embedder interface the stages consume, an
// OpenAI-compatible embeddings client (Client), its job keys (Settings). The offline hashing
// embedder is package embed/hashing; the cosine of two vectors is internal/vectors'. It does not
// import the chat client (llm): the errors and batch records both share are in llm/wire,
// llm/transport and llm/batchrec.
//
// Contract:
//   - Embed returns one vector per input text, in input order, each of Dimensions() floats.
//   - Client sends POST {base_url}/embeddings in batches of at most BatchSize texts, at most
//     Concurrency batches at a time, through the run's pacing.Pacer and pacing.Budget (shared
//     with the chat client), retrying transient failures like the chat client
//     (transport.Poster); auth and quota failures are fatal (transport.IsFatal). An answer that
//     cannot be read or does not match the batch is asked again, at most MaxInvalidRetries
//     times.
//   - With a Cache, every text's vector is stored under CacheKey(model, dimensions, text); a
//     cached text is never sent again, and a text repeated within one call is sent once.
//   - Usage counts requests, texts, cache hits, tokens, retries and cost (pacing.Prices).
//   - The API key goes only into the Authorization header and never into an error.
//   - Observe sets an calls.Observer (telemetry) that sees every request batch of texts sent or
//     queued (a call) and every change of Usage, counted under the embed stage (Stage, Task) as
//     the run report counts every stage's embeddings.
//   - Batch mode (UseBatches, embedder.mode: batch): each request of BatchSize texts is one line
//     of a provider batch (batch.Batcher); Embed returns batch.ErrPending until the batch has
//     ended and then the vectors from the cache, where delivery stored them after the same
//     checks as online. An unreadable answer is submitted again as the same request.
package embed
