// Package memgraph loads a graph into Memgraph or Neo4j over Bolt in the Graphiti schema
// (DESIGN §5). It builds the Cypher text (the schema statements — indexes, constraints, storage
// mode, snapshot — for each Dialect, the batch MERGE statements and the rows they read, and the
// statements that settle a load: list, delete, remove label, count) and runs it with the Neo4j
// Go driver (Loader). The CYPHERL export (sinks/cypherl) reuses the same text with the rows
// written as literals.
//
// Loader contract:
//   - Load writes whole groups, read from a GroupSource (*checkpoints.Store satisfies it; Filter
//     adapts any sinks.Source). Rows are batched per statement, Options.BatchSize rows per
//     explicit transaction; relationship batches go out only after every pending node batch, so
//     endpoints exist. Schema statements marked AutoCommit run in auto-commit transactions.
//   - Every transaction is retried on Transient errors (the driver's retryable errors,
//     connectivity errors including an unknown commit outcome, network errors) up to
//     Options.MaxAttempts tries with exponential backoff and jitter; all writes are idempotent.
//   - Groups are settled chunk by chunk (about Options.ChunkRows rows): the loader lists each
//     label's nodes and each type's relationships of the chunk's groups, deletes those it did not
//     write, removes Entity labels it did not write, fails when something it wrote is missing,
//     and compares the count of every label (and Entity:CustomLabel) and type with the rows
//     written. The loader therefore owns every node and relationship of the groups it loads.
//     Memory is bounded by one chunk's uuids (a single group larger than a chunk is one chunk).
//   - done receives the groups of each verified chunk except the last; the rest follow after
//     PostLoad (in analytical mode all of them, after CREATE SNAPSHOT and PostLoad). A load
//     killed at any point therefore leaves the unrecorded groups to the next Load, which
//     writes them again and removes what no longer belongs.
//   - Options.Stop ends a load gracefully: the chunk in progress is finished and recorded, the
//     schema completed, and Load returns ErrStopped. Context cancellation aborts at once; the
//     returned error then wraps context.Canceled.
//   - Memgraph has no IF NOT EXISTS for text indexes and constraints: on that dialect a schema
//     statement failing with "already exists" is ignored. A failed analytical load switches the
//     storage mode back to IN_MEMORY_TRANSACTIONAL (best effort) and records nothing.
//
// Statement contract:
//   - Every batch statement starts with RowsPrefix ("UNWIND $rows AS row ") and reads a list of
//     rows from the $rows parameter. A node row is {uuid, props}; an edge row is
//     {uuid, source, target, props}. The statement MERGEs on uuid and replaces all properties
//     (SET n = row.props), so props always carries uuid too. Edges MATCH both endpoints by uuid
//     first; an edge whose endpoint is missing is silently not written.
//   - Labels and relationship types are interpolated into the text only after ValidIdentifier
//     accepts them (^[A-Za-z_][A-Za-z0-9_]*$); no statement uses dynamic labels (SET n:$(…)).
//     Rows of entities with different label sets go to different statements (EntityLabels gives
//     the set). The MERGE statements never remove labels; the Loader's settle step removes
//     the ones an entity no longer has (RemoveLabel).
//   - Row values: times are time.Time in UTC, absent times and absent embeddings are omitted,
//     embeddings are []float64, uuid lists are []string. Custom entity attributes become
//     top-level properties except where they would overwrite a schema property; scalars and lists
//     of one scalar kind stay as they are, anything else (maps, mixed lists) becomes canonical
//     JSON text, nil values are omitted.
//   - Statement.AutoCommit marks statements that must run in an auto-commit transaction
//     (session.Run): on Memgraph every index, constraint, storage-mode and snapshot statement.
//     Neo4j schema statements are idempotent (IF NOT EXISTS) and may run in a managed transaction.
//   - Unknown dialects: the schema functions return nil and the statement builders an error;
//     callers should check with ParseDialect first.
//
// Migration order (Memgraph, DESIGN §5): PreLoad (range and vector indexes), BulkBegin (storage
// mode IN_MEMORY_ANALYTICAL), nodes, edges, BulkEnd (CREATE SNAPSHOT, back to
// IN_MEMORY_TRANSACTIONAL), PostLoad (text indexes and uuid uniqueness constraints). On Neo4j
// BulkBegin and BulkEnd are empty and PreLoad/PostLoad end with CALL db.awaitIndexes.
//
// Index names are Graphiti's (range: entity_uuid … invalid_at_edge_index; full-text:
// episode_content, node_name_and_summary, community_name, edge_name_and_fact). Graphiti has no
// vector indexes on Neo4j; ours are name_embedding_entity_index, fact_embedding_edge_index and
// name_embedding_community_index, cosine. Memgraph range indexes carry no names.
//
// Syntax checked against public sources: Neo4j range, full-text and vector index syntax
// (relationship vector indexes exist since Neo4j 5.18); Memgraph CREATE INDEX ON :L(p),
// CREATE EDGE INDEX ON :T(p) (needs --storage-properties-on-edges=true), CREATE TEXT INDEX n ON
// :L(p, …) and CREATE TEXT EDGE INDEX (property lists need Memgraph ≥ 3.6; text search was an
// experimental flag before 3.6), CREATE VECTOR [EDGE] INDEX n ON :L(p) WITH CONFIG {"dimension",
// "capacity", "metric": "cos"}, STORAGE MODE …, CREATE SNAPSHOT, CREATE CONSTRAINT ON (n:L)
// ASSERT n.p IS UNIQUE. Not verified against a running Memgraph: whether vector indexes may be
// created in IN_MEMORY_ANALYTICAL mode, and that re-running CREATE TEXT/VECTOR INDEX with an
// existing name fails (Memgraph has no IF NOT EXISTS for them): a loader re-running PostLoad
// must tolerate "already exists" errors.
package memgraph
