// Package remote tests checkpoints kept in object storage (`--checkpoint s3://BUCKET/KEY`,
// checkpoints/replica) through the real binary against the versitygw S3 gateway
// (BACKFILL_S3_*, scripts/versitygw.sh) and `backfill llm-stub`, on a LoCoMo subset (LOCOMO,
// default ../shared/datasets/locomo/locomo10.json next to the repo) as a shard run: a run
// SIGKILLed mid-extract whose local disk is deleted restores from the bucket and repeats no
// call the last snapshot answers; SIGTERM exits 143 after a last snapshot holding every answer;
// the exports equal a single local run's byte for byte; a second writer fails at once naming
// the first; a provider batch created before the run died is collected, not paid again. There
// is no library code here.
package remote
