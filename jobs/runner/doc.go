// Package runner runs a job (Run): it opens the job's checkpoint store for writing (holding its
// lock for the whole run), builds the job's clients and stages (jobs/pipeline), runs every stage
// of the list in order with the run's stages.Env, and returns the run report (package report).
// It is resumable: running the same job again skips every unit whose inputs did not change.
// With Options.Telemetry the run is one trace (a span for the run, each stage, each unit that
// runs and each call; package telemetry) and is counted in metrics; the run's span ends with
// the outcome the runs table records.
//
// After the stages the report is filled even when the run failed or was interrupted: the LLM
// usage by stage, the store's counts, each stage's own section (stages.Reporter), the provider
// batches, and the failed-units file (FailedFile) beside the store; then the run and its report
// are recorded in the store's runs table with its outcome (Outcome…). A run that stopped early
// names the first stage that did not finish (report.Report.StoppedAt); the stage counts are the
// units this run committed.
//
// With llm.mode or embedder.mode batch the clients send provider batches (batch.Batcher, recorded
// in the store): Run first settles what an earlier run left half-sent, every stage runs in
// waves, and with Options.NoWait it stops at the first stage left waiting
// (report.Batch.PendingStage, outcome "pending"; running again continues).
//
// Forgetting (forget.go): Forget removes the episodes a selection chooses from the store
// (checkpoints.Store.Forget) and runs the job without ingest (and without load unless asked,
// Options.Skip), so the changed groups are computed again. Every run whose steps all ended
// completes the forgetting of the pending groups (checkpoints.Store.Purge: the cached answers no
// longer asked are deleted) and, after recording the run, compacts the store (Compact). A source
// with sync: mirror forgets, at ingest, the episodes whose rows vanished
// (limits.max_vanished_ratio guards against a source emptied by mistake); the report counts the
// rows skipped because a deletion forgot them (forgotten).
package runner
