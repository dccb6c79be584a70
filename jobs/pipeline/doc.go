// Package pipeline turns a job (jobs.Job) into what runs it, in one place: its stages in run
// order (Stages: ingest, extract, resolve, temporal, summarize, embed, community, and load when
// the sink is a graph database), each built by its stage package from the options translated
// here, and its LLM and embedding clients (NewClients). `backfill run` (jobs/runner), `plan`
// (jobs/planner), `status` and `eval` use these and build nothing of their own, so every
// setting of the job reaches a run, a plan and an eval alike.
//
// Clients.Observe hands a run's telemetry to the clients (and to the batchers UseBatches starts
// after it).
//
// Batch mode (llm.mode or embedder.mode batch): Clients.UseBatches turns it on for the clients
// the job asks it of and returns their batchers as one stages.Batches.
package pipeline
