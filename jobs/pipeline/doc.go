// Package pipeline is the one composition root of a job. Job is a loaded job: the spec's own
// keys (jobs.Job) and every part's, each declared by the package that reads it; Job.Declare
// assembles them (Keys: the key reference and the help text are rendered from them), Load and
// Parse read a job file through package jobs. From a job it builds, in one place, what runs it:
// its stages in run order (Stages: ingest, extract, resolve, temporal, summarize, embed,
// community, and load when the sink is a graph database), its LLM and embedding clients
// (NewClients), its checkpoint store (OpenCheckpoint, the one opener of every command) and the
// file system of its sources (SourceFS). `backfill run` (jobs/runner), `plan` (jobs/planner),
// `status` and `eval` use these and build nothing of their own, so every setting of the job
// reaches a run, a plan and an eval alike.
//
// Clients.Observe hands a run's telemetry to the clients (and to the batchers UseBatches starts
// after it).
//
// Batch mode (llm.mode or embedder.mode batch): Clients.UseBatches turns it on for the clients
// the job asks it of and returns their batchers as one stages.Batches.
package pipeline
