// Package checkpoints is the embedded SQLite store (modernc.org/sqlite, pure Go, WAL mode) that
// holds everything a run needs to resume and everything it produced.
//
// Tables:
//
//	meta           key/value facts about the store (schema version; Open migrates older
//	               versions in place)
//	episodes       staged episodes, upserted by uuid; ingested_at is the record time of the
//	               first ingest and is never changed by a later upsert; staged_run names the
//	               run that last staged the row and last_change what that staging changed, so
//	               a record key repeated with other content within one run is reported
//	quarantine     rejected input rows: file, row, field, reason, raw (truncated); unique per
//	               (file, row, field) so a re-run does not duplicate them
//	units          one row per finished stage unit: (stage, unit) → fingerprint of its inputs;
//	               a unit whose LLM answers stayed bad is recorded failed, with the reason
//	               and the raw answer, and reads back with FailedPrefix so it runs again
//	stage_outputs  intermediate per-unit outputs (an episode's extraction, a group's resolution)
//	llm_cache      LLM and embedding answers keyed by a content hash, with the usage of the
//	               original call
//	entities, facts, mentions, communities
//	               the graph state, replaced per group by the stage that owns each table
//	fact_versions  the fact version log: every state of a fact's interval with its record time
//
// Times are stored as integer microseconds since the Unix epoch (UTC); an absent time is NULL.
// Embeddings are little-endian float32 blobs; lists and maps are JSON text.
//
// Crash guarantees: a unit's outputs and its units row are written in one transaction
// (CommitUnit), so after a crash at any point a unit is either complete with its record or absent
// with no partial output visible to a later stage; the LLM cache is written per answer before the
// unit commits, so a resumed run pays nothing for answers it already received. With WAL and
// synchronous=NORMAL a power loss may drop the last transactions, never corrupt the store.
package checkpoints
