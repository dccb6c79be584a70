// Package stages holds what every pipeline stage shares: the environment a stage runs in (store,
// LLM, embedder, clock, record-time mode, concurrency, progress), unit fingerprints and the
// bounded unit runner. The stages themselves live in the sub-packages, one per stage, in pipeline
// order: extract, resolve, temporal, summarize, embed, community.
//
// Contract of a stage: it processes units (an episode or a group); a unit whose stored fingerprint
// equals the fingerprint of its current inputs is skipped; otherwise the unit's outputs and its
// record are committed together (checkpoints.Store.CommitUnit). Every fingerprint includes the
// fingerprints of the upstream units it read, so a change upstream re-runs exactly what depends on
// it. Units run on a bounded pool; the first error cancels the stage.
package stages
