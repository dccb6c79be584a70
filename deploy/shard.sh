#!/bin/sh
# Runs one shard of a backfill job. The shard index comes from the orchestrator:
# JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch).
# Required: BACKFILL_JOB (job file), BACKFILL_SHARDS (N).
# BACKFILL_CHECKPOINT_URL (s3://BUCKET/PREFIX) keeps each shard's checkpoint store in object
# storage at PREFIX/shard-I-of-N.db, worked on as a local copy under BACKFILL_CHECKPOINT_DIR
# (default /var/lib/backfill, a local disk: never NFS or EFS) and restored from the bucket when
# a retry lands on another machine. Without it the store stays in BACKFILL_CHECKPOINT_DIR and a
# retry on another machine starts over.
set -eu
index="${JOB_COMPLETION_INDEX:-${AWS_BATCH_JOB_ARRAY_INDEX:-}}"
[ -n "$index" ] || { echo "shard.sh: no shard index (JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)" >&2; exit 2; }
: "${BACKFILL_JOB:?set BACKFILL_JOB to the job file}"
: "${BACKFILL_SHARDS:?set BACKFILL_SHARDS to the number of shards}"
dir="${BACKFILL_CHECKPOINT_DIR:-/var/lib/backfill}"
name="shard-$index-of-$BACKFILL_SHARDS"
mkdir -p "$dir"
if [ -n "${BACKFILL_CHECKPOINT_URL:-}" ]; then
  case "$BACKFILL_CHECKPOINT_URL" in
    s3://*) ;;
    *) echo "shard.sh: BACKFILL_CHECKPOINT_URL must be s3://BUCKET/PREFIX" >&2; exit 2 ;;
  esac
  exec backfill run "$BACKFILL_JOB" --shard "$index/$BACKFILL_SHARDS" \
    --checkpoint "${BACKFILL_CHECKPOINT_URL%/}/$name.db" \
    --set "checkpoint_sync.local=$dir/$name.db" \
    --report "$dir/$name.report.json"
fi
exec backfill run "$BACKFILL_JOB" --shard "$index/$BACKFILL_SHARDS" \
  --checkpoint "$dir/$name.db" \
  --report "$dir/$name.report.json"
