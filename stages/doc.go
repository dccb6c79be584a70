// Package stages holds what every pipeline stage shares: the environment a stage runs in (store,
// LLM, embedder, clock, record-time mode, concurrency, progress), unit fingerprints and the
// bounded unit runner. The stages themselves live in the sub-packages, one per stage, in pipeline
// order: extract, resolve, temporal, summarize, embed, community.
//
// Contract of a stage: it processes units (an episode or a group); a unit whose stored fingerprint
// equals the fingerprint of its current inputs is skipped; otherwise the unit's outputs and its
// record are committed together (checkpoints.Store.CommitUnit). Every fingerprint includes the
// fingerprints of the upstream units it read, so a change upstream re-runs exactly what depends on
// it, and a stage that asks the LLM includes Env.TaskVersions of the tasks it asks (model,
// temperature, prompt templates, schema and every other request parameter, as the LLM client
// defines them), so a change to how a task is asked re-runs exactly the units that ask it; the
// stages after them re-run too, answered from the cache. Units run on a bounded pool; the first error cancels the stage.
package stages
