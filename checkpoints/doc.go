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
//	               a record key repeated with other content within one run is reported;
//	               record is graph.Record as JSON ('' for episodes that are no JSON record);
//	               origin is the job source the row came from (sources[].path)
//	quarantine     the input rows the last run rejected: file, row (0: the file as a whole),
//	               field, reason, raw (truncated); unique per (file, row, field); ClearQuarantine
//	               empties it when a run starts ingesting
//	units          one row per finished stage unit: (stage, unit) → fingerprint of its inputs;
//	               a unit whose LLM answers stayed bad is recorded failed, with the reason
//	               and the raw answer, and reads back with FailedPrefix so it runs again
//	stage_outputs  intermediate per-unit outputs (an episode's extraction, a group's resolution)
//	llm_cache      LLM and embedding answers keyed by a content hash, with the usage of the
//	               original call
//	llm_cache_groups
//	               the groups whose units asked each cached answer (ForGroup marks a unit's
//	               context; Get and Put record it), live until a forgetting marks the group
//	entities, facts, mentions, communities
//	               the graph state, replaced per group by the stage that owns each table
//	fact_versions  the fact version log: every state of a fact's interval with its record time
//	runs           one row per run that opened the store: job, shard, finish time, outcome and
//	               the run report as JSON (its LLM calls, tokens and cost), for `backfill diff`
//	group_ids      each group id with the id the input wrote (equal unless it was mapped);
//	               ClaimGroups reports an id already recorded with another input id
//	llm_batches    provider batches (batchrec.Record): local id, kind, provider id, files,
//	               state (queued, submitting, the provider's, delivered, lost), counts and
//	               the reason of a failed or lost batch
//	llm_batch_requests
//	               their request lines (batchrec.Request): custom_id, batch, stage, task, the
//	               cache keys of the answer, and once the batch is delivered the outcome of an
//	               invalid answer, an error line, an undone request or a lost one (a valid
//	               answer's row is deleted: it is in llm_cache)
//	deletions      the deletion record (Forget): selector kinds with a hash of each value
//	               (HashValue), never the value; when, by which command, how many episodes,
//	               groups, entities and facts, the cached answers deleted, when it completed
//	forgotten      a hash of each forgotten episode's uuid: ingest skips the rows the source
//	               still holds (not for rows that vanished from a mirror source)
//	forget_pending the groups a deletion changed whose forgetting is not complete
//	sink_owned     what the graph-database loader wrote into each sink target (owned.go): per
//	               target and group the kind and uuid of every node and relationship, a hash of
//	               the properties written ("" for a claim made before writing, so a load
//	               killed mid-way leaves what it wrote owned) and the loader's kind-specific
//	               facts (extra); uuids and hashes only, never an element's text
//
// Opening: Open opens for writing; it refuses a store on a network file system (NFS and EFS,
// SMB/CIFS, 9p, Ceph, AFS, Lustre, GPFS, FUSE mounts: SQLite's write-ahead log needs memory
// shared on one host and locks those do not keep reliably; a statfs of the store's directory
// tells), then takes the store's write lock, an exclusive flock on
// <path>.lock (pid, host and start time written in it), held until Close and released by the
// kernel when the process dies: a second writer fails at once with a *LockedError naming the
// holder. The lock file, and SQLite's -wal, -shm and -journal files beside the store, must be
// plain files of their own: a symbolic link, a hard link to another name or a special file
// planted at one of those names is an error naming it, and nothing is written through it.
// OpenReadOnly takes no lock and never writes (SQLite read-only mode, which reads a live
// writer's WAL; immutable mode on read-only media, where a leftover WAL is an error), so readers
// work beside a run and on read-only media. The path goes into the SQLite URI percent-encoded:
// any legal file name names exactly that file. Errors about the file (not a database, corrupt,
// read-only, disk full) are *StoreError values naming it, wherever SQLite reports them (opening,
// any query, a row met while iterating, a commit: the connections describe their own errors),
// and a corrupt store's error says what to do (PRAGMA integrity_check, restore a copy or the
// last snapshot, or start over).
//
// Snapshots: Snapshot writes a consistent, compact copy of the store (SQLite's VACUUM INTO, one
// read transaction beside the running writer) as a plain rollback-journal file; Version (SQLite's
// data_version on the snapshot's own connection) changes exactly when the writer committed, so a
// caller can skip a copy of an unchanged store. Hooks let package replica keep the file in
// object storage as it changes: Checkpoint (between stages) runs Checkpointed, UpdateBatch of a
// batch about to be created at the provider runs Barrier and returns only once it succeeded,
// and Close runs Closing (database open) and Closed (lock released). SetMeta and Meta keep
// other packages' facts in the meta table.
//
// Times are stored as integer microseconds since the Unix epoch (UTC); an absent time is NULL.
// Embeddings are little-endian float32 blobs; lists and maps are JSON text.
//
// Crash guarantees: a unit's outputs and its units row are written in one transaction
// (CommitUnit), so after a crash at any point a unit is either complete with its record or absent
// with no partial output visible to a later stage; the LLM cache is written per answer before the
// unit commits, so a resumed run pays nothing for answers it already received. A provider batch
// and its request lines are recorded before its file is uploaded, its provider id as soon as it
// is created, and a delivered batch's answers with their rows' outcomes in the same
// transactions (batch.Batcher), so a run killed at any point never submits a request twice. With WAL and
// synchronous=NORMAL a power loss may drop the last transactions, never corrupt the store.
//
// Forgetting (forget.go, purge.go): Forget removes episodes and resets their groups (graph
// state, stage records and outputs except the load record) in one transaction, records the
// deletion and marks the groups pending and their cached answers not live. A run then computes
// the groups again; every cached answer their units ask becomes live again. Purge, called
// after a run whose stages all ended, deletes the answers no group asks any more and completes
// the deletions; Compact truncates the write-ahead log and VACUUMs, so no deleted text stays in
// free pages. A crash anywhere leaves the groups pending, and the next run that ends completes
// them.
package checkpoints
