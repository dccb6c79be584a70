// Package graphdb loads a graph into a graph database in the Graphiti schema
// (docs/architecture.md, "The data model"): Memgraph or Neo4j over Bolt with the Neo4j Go driver, FalkorDB over RESP with go-redis, all
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
// Options.Observer (telemetry), when set, sees every write transaction (its graph, rows and
// bytes, then its tries and error) and every chunk's count verification.
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
//     relationship lookup indexes before the first write of a group the database held (and
//     before analytical mode); the other range and full-text indexes and Memgraph's vector
//     indexes (and its constraints, in analytical mode) after the last write (cypher.PostLoad). On Neo4j Options.Indexes
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
//     written) are written with CREATE, the others with MERGE by uuid (Ownership). A CREATE
//     batch that fails is tried again as MERGE, so a commit whose outcome was lost (or a partial
//     write in Memgraph's analytical mode) is not duplicated; one a uniqueness constraint
//     rejects (another load wrote the group meanwhile) is tried again as MERGE at once. A group
//     repeating a uuid is an error.
//   - Ownership (sink.foreign, Options.Foreign): the loader knows what it wrote from a record
//     kept outside the graph (Options.Owner: the checkpoint store's sink_owned table, per sink
//     target and group: every element's kind and uuid, "<source> <written>" hashes of the row
//     backfill produced and of the properties written, an entity's labels and attribute keys,
//     the closure backfill's own data gave a fact). Nothing in the graph marks it:
//     graphiti-core 0.31.2 reads every property of an Entity it does not know into the node's
//     attributes (which reach its prompts) and every extra label as an entity type. Elements
//     are claimed in the record before the batch that writes them is sent (a load killed
//     mid-way leaves them owned) and the record of a group is replaced once its chunk is
//     verified. With ForeignKeep (the default) a load never deletes or overwrites what it did
//     not write: the nodes and relationships of its groups that are not in the record are kept
//     and counted (Result.ForeignKept, by kind); labels are removed only where the loader wrote
//     them. In a held group, an element whose row hashes as recorded is written only where the
//     database lacks it (cypher.Keep, MERGE … ON CREATE: labels and embedding too), so what an
//     online writer did to it (a fact it closed, a summary it extended, properties or labels it
//     added) stays. An element whose row changed (or that the record lacks) is read back
//     (cypher.ReadProps, a batch at a time) and reconciled: the loader's properties win, the
//     ones it wrote before and no longer has are removed, another writer's additions stay; a
//     fact closed by another writer (invalid_at/expired_at differing from the closure the
//     loader's data gave it last time) stays closed with that writer's times unless one of the
//     fact's episodes is dated after that end (the fact was stated again since: later knowledge
//     wins); a fact's episodes keep the other writer's episodes after the loader's. The element
//     is then written with SET += (cypher.Update). An element whose properties another writer
//     changed since the loader last wrote it (hash of the database's properties restricted to
//     the loader's keys differs from the recorded one) and that this write changes again is
//     counted in Result.OverwrittenOnlineEdits, with the first uuids. Elements the record holds
//     and the load no longer writes (forgotten episodes, merged entities, recomputed
//     communities) are deleted: they are the loader's. ForeignDelete makes every loaded group
//     what the loader writes (MERGE with SET n = row.props, every element and label not
//     written deleted), for a database only backfill writes. A group without a record (a
//     store of an older version, or another store's load) owns what it writes now; what an
//     older load left and this one does not write is foreign to it.
//   - Leases (two writers of one graph): before a window of groups (up to 1000) is looked up,
//     the load takes a lease per group in the database (a BackfillLease node keyed by group,
//     in the group's graph on FalkorDB; cypher.TakeLeases, atomic by the lease constraint on
//     Neo4j and Memgraph and because FalkorDB runs a graph's queries one at a time), all or
//     none: a group another load holds makes it release what it took and try again every
//     second for Options.LeaseWait (default 1 min, sink.lease_wait_seconds), then fail with
//     ErrLeaseHeld naming the holder (host, pid, job, since when, time left). Leases are
//     renewed every third of Options.LeaseTTL (default 2 min, sink.lease_seconds) and released
//     once their chunk is verified (all of them when Load returns); a killed load's leases
//     expire after the TTL, or at once when it ran on this host and its process is gone
//     (cypher.ExpireLeases). Times are the database's clock. A lease found expired and taken
//     by another load fails this load before it records its groups.
//   - uuid uniqueness is enforced by the database where it can be, so a duplicate cannot be
//     written even without leases: Neo4j uniqueness constraints on the uuid of every label and
//     relationship type, named as Graphiti's range indexes they replace (the constraint's own
//     index has that name, so graphiti-core's build_indices_and_constraints, CREATE INDEX …
//     IF NOT EXISTS, still succeeds, and db.awaitIndex finds it; checked on Neo4j 5.26
//     Community, which has node and relationship uniqueness constraints): a range index of
//     the name is dropped and the constraint created (cypher.Statement.Replaces), unless the
//     data holds duplicates; Memgraph node constraints (it has none for relationships), in
//     PreLoad (after the load in analytical mode); FalkorDB GRAPH.CONSTRAINT (a command, not
//     Cypher: cypher.Statement.Command) per graph after its uuid range indexes, awaited, a
//     FAILED one dropped. A constraint that cannot be created is not an error: it is reported
//     in Result.ConstraintsMissing and tried again after the loaded groups were repaired.
//     Creating an index or constraint another session creates at the same moment is success
//     (cypher.SchemaExists: Neo4j's EquivalentSchemaRuleAlreadyExists and its siblings).
//   - Repair: in a graph lacking one of those constraints, a held group is searched for uuids
//     held more than once before it is written (repairGroup): for the loader's own node uuids
//     the copy with the lowest element id is kept, the relationships of the others move onto
//     it (every type they have, properties copied) and they are deleted; relationship copies
//     left between the same two nodes keep one. Result.DuplicatesRepaired counts the copies
//     removed.
//   - Every transaction is retried on Transient errors (the driver's retryable errors,
//     connectivity errors including an unknown commit outcome, network errors; on FalkorDB also
//     LOADING, BUSY and TRYAGAIN replies of a restarting or busy server) up to
//     Options.MaxAttempts tries with exponential backoff and jitter; every retried write is
//     idempotent (MERGE, SET +=, DELETE, REMOVE, IF NOT EXISTS, a lease taken by its holder).
//   - Groups are settled chunk by chunk (about Options.ChunkRows rows, at most Sessions-1 groups
//     more): for a chunk with a group the database held, the loader lists each label's nodes and
//     each type's relationships of the chunk's groups, deletes those it wrote before and no
//     longer writes (every one not written, with ForeignDelete), counts the foreign ones,
//     removes Entity labels as Ownership says and fails when something it wrote is missing;
//     then it counts, in one query per graph (cypher.CountsQuery), every label (and
//     Entity:CustomLabel) and type it wrote and compares with the rows written: by uuid for a
//     chunk with a held group (exactly its own elements, whatever other writers add
//     meanwhile), by group for a chunk of new groups (nothing stale or foreign: the counts
//     alone catch what is missing or duplicated). Result.Counts are these counts. Memory is
//     bounded by one chunk's uuids and records (a single group larger than a chunk is one
//     chunk).
//   - done receives the groups of each verified chunk except the last; the rest follow after
//     PostLoad and the missing constraints' second try (in analytical mode all of them, after CREATE SNAPSHOT and PostLoad). A load
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
