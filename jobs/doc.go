// Package jobs is the job spec and the runner. A job is a YAML file (Job): its sources and field
// mapping, timezone, record-time mode, LLM and embedder settings, ontology, stage options, sink
// and limits. Load parses the YAML, expands ${VAR} and ${VAR:-default} from the environment inside
// scalar values (never keys or comments; an unset variable is an error naming its line), rejects
// unknown keys (*KeyError: line, dotted path, the nearest known key) and values of the wrong
// shape or type (*ValueError) on the parsed tree, applies --set overrides by dotted path (numbers
// index lists; a --set that cannot apply is a *SetError wrapping them), fills defaults and
// validates the whole job: every
// numeric key finite, not negative and within its maximum (maxima), ontology names unique
// identifiers, each source's loader settings.
//
// The runner (Run) wires loaders → checkpoint store → stages in order (ingest, extract, resolve,
// temporal, summarize, embed, community, and load when the sink is Memgraph or Neo4j; each a
// package of stages/ called with the run's stages.Env and the Options options.go translates from
// the job) and returns the run report. It is resumable: running the same job again skips every unit whose inputs did
// not change. Run opens the store for writing (holding its lock for the whole run); ingest
// clears the quarantine of the run before (a run's quarantine is the rows it rejected) and
// records each group id with the id the input wrote (a row that writes another group's mapped id
// verbatim is quarantined instead of joining that group). With llm.mode or embedder.mode batch
// the clients send provider batches (batch.Batcher, recorded in the store): Run first settles what
// an earlier run left half-sent, every stage runs in waves, and with RunOptions.NoWait it stops
// at the first stage left waiting (Report.Batch.PendingStage, outcome "pending"; running again
// continues). MakePlan estimates a job's calls, tokens and cost without calling the LLM,
// reading the job's store read-only.
//
// Forgetting (forget.go): Forget removes the episodes a selection chooses from the store
// (checkpoints.Store.Forget) and runs the job without ingest (and without load unless asked),
// so the changed groups are computed again. Every run whose steps all ended completes the
// forgetting of the pending groups (checkpoints.Store.Purge: the cached answers no longer asked
// are deleted) and, after recording the run, compacts the store (Compact). A source with
// sync: mirror forgets, at ingest, the episodes whose rows vanished (limits.max_vanished_ratio
// guards against a source emptied by mistake); the report counts the rows skipped because a
// deletion forgot them (forgotten).
package jobs
