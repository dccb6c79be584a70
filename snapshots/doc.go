// Package snapshots reads a finished graph one group at a time, for the commands that judge a
// graph rather than build it (`backfill eval`, `backfill diff`).
//
// Contract:
//   - A Snapshot is a checkpoint store (OpenStore, read through the store's per-group read API),
//     a Parquet export directory (OpenParquet, read through sinks/parquet's row types) or a graph
//     in Neo4j that Graphiti or backfill's Bolt sink wrote (OpenBolt). Open picks by what the path
//     is: a Bolt URI (IsBoltURI) is a Neo4j graph, a directory an export, a file a store.
//   - A Bolt graph is read in read transactions only, one group at a time (the group ids of its
//     Episodic, Entity and Community nodes, then a query per kind). It reads what Graphiti
//     writes: absent optional properties are zero values, properties backfill does not know are
//     an entity's attributes (Entity) or ignored (elsewhere), times may be zoned datetimes,
//     naive ones (taken as UTC), dates or RFC 3339 text. Graphiti keeps no record key: an
//     episode's record_key property, else its name, stands for it (name the episodes by their
//     record keys when adding them, as scripts/eval_graphiti.py does); its Seq is its position
//     in reference time, created_at and uuid order; a fact without reference_time gets its
//     first episode's. A value of another type is an error naming the group, the node or edge
//     and the property. Credentials come from the caller, never from the URI.
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
//     an export and a Bolt graph have none, and no version log (HasVersions is false).
package snapshots
