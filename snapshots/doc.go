// Package snapshots reads a finished graph one group at a time, for the commands that judge a
// graph rather than build it (`backfill eval`, `backfill diff`).
//
// Contract:
//   - A Snapshot is a checkpoint store (OpenStore, read through the store's per-group read API),
//     a Parquet export directory (OpenParquet, read through sinks/parquet's row types), a graph
//     in Neo4j or Memgraph that Graphiti or backfill's Bolt sink wrote (OpenBolt), or the graphs
//     of a FalkorDB server that Graphiti's FalkorDriver or backfill's FalkorDB sink wrote
//     (OpenFalkorDB). Open picks by what the path is: a Bolt URI (IsBoltURI) is a Bolt graph, a
//     redis:// or rediss:// URI (IsFalkorDBURI) a FalkorDB server, a directory an export, a file
//     a store. Kind says which (KindCheckpoint, KindExport, KindNeo4j, KindMemgraph, KindBolt
//     for a Bolt server that names itself neither, KindFalkorDB), and Describe starts with it,
//     so every message names the kind of graph read.
//   - A graph database is read with read queries only (Bolt: read transactions; FalkorDB:
//     GRAPH.RO_QUERY), one group at a time (the group ids of its Episodic, Entity and Community
//     nodes, then a query per kind, the same queries on every server). On FalkorDB every group
//     is the graph cypher.GraphName names (GRAPH.LIST; Graphiti's default group "_" is
//     default_db): a graph without such nodes holds no group, one holding another group's nodes
//     is an error naming both. It reads what Graphiti writes: absent optional properties are
//     zero values, properties backfill does not know are an entity's attributes (Entity) or
//     ignored (elsewhere), times may be zoned datetimes, naive ones (taken as UTC), dates or
//     RFC 3339 text (with or without a zone, as FalkorDB stores them). backfill's loader writes
//     each episode's record key (record_key) and source position (seq) since load-v4, so a
//     graph it loaded reads back as its checkpoint: episodes in reference time, seq, created_at
//     and uuid order, with their record keys. Graphiti keeps neither: an episode without
//     record_key has its name for a record key (Group.NamedKeys counts them; name the episodes
//     by their record keys when adding them, as scripts/eval_graphiti.py does) and its position
//     for a Seq; a fact without reference_time gets its first episode's. A value of another
//     type is an error naming the group, the node or edge and the property. Credentials come
//     from the caller, never from the URI.
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
//     an export and a database graph have none, and no version log (HasVersions is false).
package snapshots
