// Package batch is provider batch mode (llm.mode or embedder.mode: batch): a Batcher sends the
// requests of a client (the chat client, the embeddings client: each a Kind) through the
// provider's Files and Batch API at its batch price, records every batch and request in the
// checkpoint store, and delivers each ended batch's answers into the cache.
//
// Options.Observer (telemetry), when set, sees every batch from its first request to its
// submission (Opened, Submitted), every call that queues a request into it (Queued, with the
// call's context) and every delivery.
//
// Contract:
//   - A Batcher sends requests through the provider's Files and Batch API (API: the OpenAI
//     shape). A client hands it a request its cache does not answer (Batcher.Request), which
//     queues it and returns ErrPending, or polls the batch that carries it (at most once per
//     Options.Poll) and returns ErrPending while that batch runs, or returns the request's
//     outcome once its batch ended. The caller runs again later (stages.RunStream's waves, which
//     mark their context with Replaying) and finds the answer in the cache.
//   - Every request line is recorded (Store, the checkpoint store) before its batch's file
//     is uploaded, and every batch at each step (queued, submitting, created with its provider
//     id and state) before anything waits on it; a request is never queued while a row of its
//     key is pending, so a run started again polls the batches it paid for and never submits a
//     request twice. Recover settles what a killed run left half-sent: a batch still queued is
//     dropped, one that was submitting is found at the provider by its metadata (MetaBatch) or
//     dropped. A request's key is Key(endpoint, body, attempt): the custom_id of its line.
//   - State the provider may lose is confirmed before it is believed, then recorded: a batch
//     it answers 404 or 410 for (twice, and absent from its batch list) or whose output or
//     error file it no longer serves (twice) is Lost, not open; its unanswered rows are
//     ReqLost and their requests submitted again once per loss, outside MaxRetries (at most
//     max(MaxRetries, 1) losses of one request per run), counted in Usage.Lost and
//     Usage.Resubmitted. A failed batch keeps the provider's reason (Record.Reason, from its
//     errors); failed and lost batches are listed in Usage.Failures. A provider with no batch
//     list has none of the batches Recover looks for.
//   - Queued lines go to a file on disk (Options.SpoolDir); a batch is submitted when it
//     reaches MaxRequests lines or MaxBytes bytes, and by Flush.
//   - An ended batch is delivered once: each answer line is validated by the client's Kind
//     exactly like an online answer (Kind.Settle; embeddings: one vector per text of the right
//     size); a valid answer goes into the cache under the request's cache key and its row is
//     deleted; an invalid one is recorded (error text, raw answer, finish reason) and replayed
//     to the call, which retries with the recorded error fed back (the same text on every run,
//     so the retry is the same request); an error line, a request the batch left undone and an
//     unreadable line are submitted again, at most MaxRetries times per run, then Exhausted:
//     sent online with FallbackOnline, else the call fails (Outcome.Err). Usage is counted
//     once, at delivery, at the model's batch price (pacing.Price.Batch); a batch's estimate is
//     booked on the Budget when its requests are queued and corrected when it is delivered.
package batch
