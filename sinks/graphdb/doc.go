// Package graphdb loads a graph into a graph database in the Graphiti schema (DESIGN §5):
// Memgraph or Neo4j over Bolt with the Neo4j Go driver, FalkorDB over RESP with go-redis, all
// through one Loader. The Cypher text it runs (schema statements for each dialect, batch CREATE
// and MERGE statements and their rows, the statements that settle a load) comes from
// sinks/cypher, which the CYPHERL export (sinks/cypherl) uses too.
//
// The server sits behind an executor (executor.go) that runs a statement in a graph: a Bolt
// database name (boltExec) or a FalkorDB graph (respExec). Every group lives in the graph
// graphOf names: Options.Database on Memgraph and Neo4j; on FalkorDB the graph named after the
// group (cypher.GraphName: "_" is default_db), because graphiti-core's FalkorDriver reads and
// writes each group_id in the graph of that name. Queries over several groups (which groups are
// held, the settle lists, the count verification) run once per graph (byGraph): one query on
// Memgraph and Neo4j, one per group on FalkorDB. A rule about what the loader may write, keep
// or delete in a group is therefore written once, in the loader, for every dialect.
//
// FalkorDB is reached over RESP (GRAPH.QUERY; reads with GRAPH.RO_QUERY, so a missing graph reads
// empty instead of being created), not over its Bolt port: FalkorDB 4.16.3's Bolt, documented
// as experimental, ignores the session's database name (a session naming a graph wrote into a
// graph called "db"), so it cannot address a group's graph. FalkorDB takes parameters only as
// a "CYPHER k=v …" prefix: rows are rendered as literals (cypher.WriteLiteral) when they are
// queued, and BatchBytes bounds the literal text. Each GRAPH.QUERY is atomic; there are no
// multi-statement transactions.
//
// Loader contract:
//   - Load writes whole groups, read from a sinks.Source. Options.Sessions workers (default 2:
//     faster than one on a quiet 2-core machine, slower only when other work loads Neo4j's
//     cores, bench/results.md) write groups at once, each group whole by one worker with its
//     own session: groups share no node, so their writes never conflict. A worker batches rows
//     per statement and graph under the batching rule of sinks/cypher (cypher.Limits): at most
//     Options.BatchSize rows and Options.BatchBytes bytes (as sent: an estimate of the Bolt
//     encoding, the literal text on FalkorDB; default DefaultBatchBytesFor: 2 MiB, which
//     measured faster than 1 or 4 MiB with 1024-d embeddings and Neo4j's vector indexes online,
//     or 8 MiB on Neo4j when the vector indexes come after the last write) per explicit
//     transaction (one GRAPH.QUERY on FalkorDB), keeps one batch in flight
//     while the next fills, and writes a group's relationships only after its pending node
//     batches have committed, so endpoints exist. At most Options.Sessions groups are read at
//     once.
//   - Schema: the node lookup indexes (uuid, group_id) before any write (cypher.PreLoad); the
//     relationship lookup indexes before the first settle of a group the database held (and
//     before analytical mode); the other range and full-text indexes, Memgraph's vector indexes
//     and its constraints after the last write (cypher.PostLoad). On Neo4j Options.Indexes
//     (cypher.IndexMode, sink.indexes) decides the rest. With graphiti (the default) the range
//     and full-text indexes are awaited after the last write, and the vector indexes, which
//     Graphiti's search does not use, are created after that wait and populated by Neo4j after
//     Load returns (maintaining them during the load cost half to two thirds of its rows/s,
//     bench/results.md). With online the vector indexes are created and awaited before the
//     first write (Neo4j keeps an online vector index up to date as rows are written, several
//     times faster than populating one afterwards) and the range and full-text indexes are
//     awaited after the last write, so every index is online when Load returns. With background
//     only the node lookup indexes are awaited; every other index is created after the last
//     write and populated by Neo4j after Load returns.
//     Load then asks SHOW INDEXES which of the indexes it did not await are not online
//     (cypher.IndexesAfterLoad), names them in Result.IndexesPopulating and the log, and fails
//     when one failed to populate. Result.SchemaSeconds is the time of the schema after the last
//     write. Neo4j index statements of one kind (range, full-text, vector) share one
//     transaction, each kind its own, so Neo4j populates the kinds concurrently
//     (cypher.Statement.Together).
//     Statements marked AutoCommit run in auto-commit transactions. On FalkorDB
//     (cypher.GraphPerGroup) the schema is per graph: Graphiti's range and full-text indexes
//     (cypher.PreLoad) are created in a group's graph before its first write (an index that
//     exists answers "already indexed", which is ignored, as Graphiti ignores it), so the index
//     is maintained as rows arrive and every index is usable when Load returns; there is no
//     vector index (Graphiti's FalkorDB search computes vec.cosineDistance over the rows).
//   - Groups the database holds no Episodic, Entity or Community node of (asked before they are
//     written) are written with CREATE, the others with MERGE by uuid. A CREATE batch that
//     fails is tried again as MERGE, so a commit whose outcome was lost (or a partial write in
//     Memgraph's analytical mode) is not duplicated. A group repeating a uuid is an error. One
//     loader at a time per group: two loads writing the same new group at once would both
//     CREATE it, which verification reports.
//   - Every transaction is retried on Transient errors (the driver's retryable errors,
//     connectivity errors including an unknown commit outcome, network errors; on FalkorDB also
//     LOADING, BUSY and TRYAGAIN replies of a restarting or busy server) up to
//     Options.MaxAttempts tries with exponential backoff and jitter; every retried write is
//     idempotent (MERGE, DELETE, REMOVE, IF NOT EXISTS).
//   - Groups are settled chunk by chunk (about Options.ChunkRows rows, at most Sessions-1 groups
//     more): for a chunk with a group the database held, the loader lists each label's nodes and
//     each type's relationships of the chunk's groups, deletes those it did not write, removes
//     Entity labels it did not write and fails when something it wrote is missing; for every
//     chunk it compares the count of every label (and Entity:CustomLabel) and type, counted in
//     one query (cypher.CountsQuery), with the rows written (a chunk of new groups has nothing
//     stale: the counts alone catch what is missing or duplicated). The loader therefore owns
//     every node and relationship of the groups it loads. Memory is bounded by one chunk's
//     uuids (a single group larger than a chunk is one chunk).
//   - done receives the groups of each verified chunk except the last; the rest follow after
//     PostLoad (in analytical mode all of them, after CREATE SNAPSHOT and PostLoad). A load
//     killed at any point therefore leaves the unrecorded groups to the next Load, which
//     writes them again (the partly written ones with MERGE) and removes what no longer belongs.
//   - Options.Stop ends a load gracefully: the groups in progress and their chunk are finished
//     and recorded, the schema completed, and Load returns ErrStopped. Context cancellation
//     aborts at once; the returned error then wraps context.Canceled.
//   - Memgraph has no IF NOT EXISTS for text and vector indexes and constraints: on that dialect
//     a schema statement failing with "already exists" is ignored (cypher.SchemaExists). Analytical mode follows
//     Memgraph's bulk path: lookup indexes, the uuid constraints dropped (Memgraph ≥ 3.8 refuses
//     the switch while constraints exist), STORAGE MODE IN_MEMORY_ANALYTICAL, nodes, edges,
//     CREATE SNAPSHOT, back to IN_MEMORY_TRANSACTIONAL, then the other indexes and the
//     constraints. A failed analytical load switches the storage mode back to
//     IN_MEMORY_TRANSACTIONAL (best effort) and records nothing.
package graphdb
