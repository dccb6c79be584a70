#!/bin/sh
# Runs one shard of a backfill job. The shard index comes from the orchestrator:
# JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch).
# Required: BACKFILL_JOB (job file), BACKFILL_SHARDS (N). Optional: BACKFILL_CHECKPOINT_DIR.
set -eu
index="${JOB_COMPLETION_INDEX:-${AWS_BATCH_JOB_ARRAY_INDEX:-}}"
[ -n "$index" ] || { echo "shard.sh: no shard index (JOB_COMPLETION_INDEX or AWS_BATCH_JOB_ARRAY_INDEX)" >&2; exit 2; }
: "${BACKFILL_JOB:?set BACKFILL_JOB to the job file}"
: "${BACKFILL_SHARDS:?set BACKFILL_SHARDS to the number of shards}"
dir="${BACKFILL_CHECKPOINT_DIR:-/var/lib/backfill}"
mkdir -p "$dir"
exec backfill run "$BACKFILL_JOB" --shard "$index/$BACKFILL_SHARDS" \
  --checkpoint "$dir/shard-$index-of-$BACKFILL_SHARDS.db" \
  --report "$dir/shard-$index-of-$BACKFILL_SHARDS.report.json"
