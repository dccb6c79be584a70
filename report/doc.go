// Package report holds the run report (docs/reference/commands.md): what a run did, as `backfill run` prints it
// (WriteTable), writes it with --report (JSON) and the checkpoint store keeps it in its runs
// table. It imports only llm/batch (the batchers' usage, in the batch section), so the side that
// reads reports (graphdiff, bench, the tests) depends on it and not on the stages or the runner
// that fill it.
//
// The types of the sections a stage fills are defined here and used by their stages: Stats (every
// stage, stages.Stats), Records (ingest), Temporal (the temporal stage's counts), Load (the
// graph-database load, converted from the loader's result, whatever the sink) and Purged (the
// forgetting a run completed, converted from checkpoints.Purged). The runner
// (jobs/runner) fills the report; each stage's section is written by the stage itself
// (stages.Reporter).
package report
