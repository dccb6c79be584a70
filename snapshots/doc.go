// Package snapshots reads a finished graph one group at a time, for the commands that judge a
// graph rather than build it (`backfill eval`, `backfill diff`).
//
// Contract:
//   - A Snapshot is a checkpoint store (OpenStore, read through the store's per-group read API)
//     or a Parquet export directory (OpenParquet, read through sinks/parquet's row types). Open
//     picks by what the path is: a directory is an export, a file a store.
//   - Groups yields every group in ascending group id order, each whole (episodes, entities,
//     facts, mentions, communities with their members and, from a store, the fact version log),
//     and nothing of the next group before the previous one was handed out, so memory is bounded
//     by the largest group. Groups the want function rejects are skipped (a store does not read
//     them at all; an export reads past them).
//   - Order inside a Group is the sinks.Source order: episodes by reference time and sequence,
//     everything else by uuid, versions by fact uuid and sequence.
//   - An export directory has no usable version log per group (fact_versions.parquet is ordered
//     by fact uuid across groups): its Groups carry Versions nil and HasVersions reports false;
//     consumers then take each fact's stored interval as its last version. An export whose
//     tables are not in group order is an error, never a silent mix of groups.
//   - Runs lists the runs recorded in a store's runs table (LLM calls, tokens and cost per run);
//     an export has none.
package snapshots
