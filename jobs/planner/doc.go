// Package planner makes the plan of a job (Make): a dry run that calls no LLM and writes nothing
// but a scratch store, estimating what a run of the job would read, ask and cost, stage by stage
// over the job's stages (jobs/pipeline) with their own estimates (stages.Stage.Estimate).
//
// The plan sees what a run sees: the clients are the run's (pipeline.NewClients, their cache the
// job's store), the scratch store holds the job's episodes with the sources ingested over them
// (as the run's store will), and a unit whose fingerprint on record in the job's store equals the
// one the run would compute is done: it costs nothing, and the plan says which stages' units are
// done. After a complete run, the plan of the same job predicts no call in any stage. The job's
// store is only read (checkpoints.OpenReadOnly).
//
// Current applies the same judgement to a store as it is, without reading the sources: the
// units each stage has done under the job's current settings (what `status` shows).
package planner
