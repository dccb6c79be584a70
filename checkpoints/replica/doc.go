// Package replica keeps a checkpoint store in object storage (S3 or an S3-compatible store):
// `--checkpoint s3://BUCKET/KEY`. A run works on a local copy of the store (checkpoints.Store,
// SQLite in WAL mode on a local disk) and the bucket keeps consistent snapshots of it, so a job
// whose machine goes away resumes on another from the last snapshot.
//
// Objects, for a store at KEY:
//
//	KEY        the latest snapshot: the database file (checkpoints.Store.Snapshot, VACUUM INTO)
//	           compressed with zstd; its metadata (x-amz-meta-backfill-*) holds a random
//	           snapshot id, a sequence number, the SHA-256 and size of the database file, when
//	           and by which host it was taken
//	KEY.lease  the writer's lease: JSON with the holder's host, pid, start time, TTL and local
//	           copy; released (marked so) when the writer closes
//
// Writers (Open): one writer per store. Open takes the lease with a conditional write
// (If-None-Match: * to create it, If-Match: ETag to take over one that was released or not
// renewed within its TTL by the server's clock); the holder renews it every TTL/4
// (DefaultLeaseTTL 60 s). A lease its holder still renews makes Open fail at once with a
// *checkpoints.LockedError naming the holder (host, pid, since); one whose holder missed two
// renewals (a process that died) is waited for until it expires, then taken over. Every snapshot
// upload is conditional too (If-Match the ETag of the snapshot this process restored or last
// uploaded, If-None-Match: * for the first): a process that lost its lease (cut off longer than
// the TTL) can never overwrite its successor's snapshot; it gets ErrLost (Options.OnLost stops
// the run). Both conditions are supported by AWS S3 (PutObject and CompleteMultipartUpload,
// 412 Precondition Failed, or 409 ConditionalRequestConflict for a concurrent write) and by
// versitygw v1.8.0 (checked against the test server: one winner out of 50 concurrent
// conditional writes).
//
// Restore: Open restores the bucket's snapshot into the local copy (Options.Local) when the copy
// is missing, damaged, or does not continue that snapshot: the copy's meta key replica.snapshot
// names the last snapshot taken of it (or restored into it) and its location, and a copy whose
// snapshot is still the bucket's holds that snapshot and possibly more, so it is kept. A local
// store that was never a copy, or is the copy of another location, is never replaced (an error
// says to move it or choose another checkpoint_sync.local); with no snapshot in
// the bucket the local copy is uploaded as the first one (a local store moves to a bucket this
// way). A download is checked against the snapshot's size and SHA-256 and replaces the local
// copy with its -wal and -shm files removed (checkpoints.Replace).
//
// Snapshots are taken when the store changed (checkpoints.Store.Version): after each stage
// (the Checkpointed hook, in the background), every Options.Every (DefaultEvery 5 min), at once
// when Options.Stop closes (the first SIGTERM, while the run drains), before a provider batch is
// created (the Barrier hook: UpdateBatch returns only once a snapshot holding the submitting
// batch is in the bucket, so a run that dies after the provider created it finds it there
// instead of paying for it again), and when the store closes (the last one, then the lease is
// released). The LLM cache, failed units and open provider batches are tables of the store and
// travel with it. A failed periodic upload is logged and retried at the next one; a failed last
// upload is Close's error. Snapshots are whole files: for the 12 MB LoCoMo store one takes about a
// second on a loaded 2-core machine, 3.2 MB uploaded (bench/results.md); shipping the
// write-ahead log instead would pay only for stores of many gigabytes.
//
// Readers (OpenReadOnly) take no lease: they download the latest snapshot into a temporary
// directory (removed when the store closes) and open it read-only.
//
// Parse tells a checkpoint name kept in object storage (s3://BUCKET/KEY) from a local path; a
// name with any other URL scheme is an error, never a local path.
package replica
