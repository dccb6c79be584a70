// Package batch holds the tests of batch mode (llm.mode and embedder.mode: batch) through the
// binary against `backfill llm-stub` serving the files and batches API: a LoCoMo subset run in
// batch mode gives an export byte-identical to an online run's (record_time: reference) and
// leaves a store an online run re-runs without a call; a run SIGKILLed while its batches are
// pending and run again submits no request twice (the stub counts submissions per request) and
// ends with the same export; --no-wait returns at once with "N batches pending" and `status`
// lists the batches; error lines, expired batches and unreadable output lines are submitted
// again until the run completes, with the same export, the resubmissions counted in the
// report and the cost at batch prices (half the online run's). There is no library code here.
package batch
