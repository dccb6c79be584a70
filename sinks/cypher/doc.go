// Package cypher is the Cypher text of the Graphiti schema (docs/architecture.md, "The data
// model") for the Memgraph, Neo4j and FalkorDB dialects: schema statements (indexes, constraints, storage mode, snapshot), the
// batch CREATE and MERGE statements and the rows they read, the statements that settle a load
// (which groups are held, list, delete, remove label, count), the literals of each dialect
// (WriteLiteral) and the one batching rule of the sinks (Limits, Pending: rows per statement, a
// batch written at Rows rows or Bytes bytes as sent). The loader (sinks/graphdb) runs the
// statements with $rows parameters (on FalkorDB as a "CYPHER rows=…" literal prefix); the
// CYPHERL export (sinks/cypherl) writes the same MERGE statements with the rows as literals.
//
// FalkorDB follows graphiti-core 0.31.2's FalkorDriver: every group is a graph of its own
// (Dialect.GraphPerGroup, GraphName), embeddings are set with vecf32(…), times are the strings
// Python's isoformat() gives (TimeText), and the schema is Graphiti's indexes (falkordb.go: its
// range indexes one property at a time, its full-text statements), run in each graph before its
// first write. FalkorQuery writes a query's parameters as the "CYPHER k=v …" prefix FalkorDB
// takes, and FalkorReply decodes its compact replies, for the loader and the graph readers
// (snapshots) alike.
//
// Statement contract:
//   - Every batch statement starts with RowsPrefix ("UNWIND $rows AS row ") and reads a list of
//     rows from the $rows parameter. A node row is {uuid, props, embedding?}; an edge row is
//     {uuid, source, target, props, embedding?}. Write Merge MERGEs on uuid, Write Create
//     CREATEs (only for rows the database does not hold); both replace all properties
//     (SET n = row.props), so props always carries uuid too. Write Keep writes only the rows
//     whose uuid the database lacks (MERGE … ON CREATE marks the element with MarkNew, the rest
//     of the statement runs for marked elements only and SET n = row.props removes the mark);
//     Write Update MERGEs on uuid and sets props over what is there (SET n += row.props: a
//     null removes a property, other properties stay). RowKeys lists the keys of each kind's
//     props. Edges MATCH both endpoints by uuid first; an edge whose endpoint is missing is
//     silently not written.
//   - Embeddings (entities and communities: name_embedding, facts: fact_embedding) travel in
//     row.embedding, outside props. Neo4j sets them with db.create.setNodeVectorProperty and
//     db.create.setRelationshipVectorProperty (stored as float32 arrays, as Graphiti stores them;
//     faster than a float list in the property map); Memgraph with SET.
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
//     Neo4j schema statements are idempotent (IF NOT EXISTS) and may run in a managed
//     transaction; Statement.Together marks the Neo4j index statements that may share one
//     (the indexes of one kind: range, full-text, vector).
//   - Unknown dialects: the schema functions return nil and the statement builders an error;
//     callers should check with ParseDialect first.
//
// Sharing a graph (own.go, lease.go): ReadProps reads elements' properties without their
// embedding; CountNodesByUUID and CountEdgesByUUID count exactly the elements written;
// DuplicateNodes, DuplicateEdges, NodeCopies, AttachedTypes, Relink, DeleteByID and
// DeleteEdgeCopies find and repair uuids held more than once; TakeLeases, RenewLeases,
// ReleaseLeases and ExpireLeases keep the LabelLease nodes of the groups being loaded, on the database's clock.
// Uniqueness constraints: Neo4j's replace the uuid range indexes under their names
// (Statement.Constraint, Replaces, Duplicates, Fallback), Memgraph's are on the node uuids,
// FalkorDB's are GRAPH.CONSTRAINT commands (Statement.Command, ConstraintStates). SchemaExists,
// IndexBlocks and UniqueViolation classify the databases' errors once.
//
// Load order (Memgraph's documented bulk path: indexes for lookups first, constraints and the
// other indexes after): PreLoad (node lookup indexes: uuid and group_id), [EdgeLookups,
// BulkBegin (drop the uuid constraints, STORAGE MODE IN_MEMORY_ANALYTICAL)], nodes, edges,
// [BulkEnd (CREATE SNAPSHOT, back to IN_MEMORY_TRANSACTIONAL)], PostLoad (relationship lookup and
// other range indexes, vector indexes, text indexes, and after a bulk load the uuid uniqueness
// constraints, which a plain load creates in PreLoad). On Neo4j
// BulkBegin and BulkEnd are empty, PreLoad and EdgeLookups end by awaiting their indexes, and
// SchemaOptions.Indexes (IndexMode) places the vector indexes: IndexesGraphiti (the loader's
// default) creates them last in PostLoad, after awaiting the range and full-text indexes, and
// does not await them; IndexesOnline (and "", the order of DDL) creates and awaits them in
// PreLoad; IndexesBackground creates them in PostLoad and awaits nothing there.
//
// Index names are Graphiti's (range: entity_uuid … invalid_at_edge_index; full-text:
// episode_content, node_name_and_summary, community_name, edge_name_and_fact). Graphiti has no
// vector indexes on Neo4j; ours are name_embedding_entity_index, fact_embedding_edge_index and
// name_embedding_community_index, cosine. Memgraph range indexes carry no names.
//
// Syntax checked against public sources: Neo4j range, full-text and vector index syntax
// (relationship vector indexes exist since Neo4j 5.18), db.awaitIndex, and the vector property
// procedures (run against the test server, Neo4j 5.26); Memgraph CREATE INDEX ON :L(p), CREATE
// EDGE INDEX ON :T(p) (needs --storage-properties-on-edges=true), CREATE TEXT INDEX n ON :L(p, …)
// and CREATE TEXT EDGE INDEX (property lists need Memgraph ≥ 3.6; text search was an
// experimental flag before 3.6), CREATE VECTOR [EDGE] INDEX n ON :L(p) WITH CONFIG {"dimension",
// "capacity", "metric": "cos"}, STORAGE MODE …, CREATE SNAPSHOT, CREATE/DROP CONSTRAINT ON (n:L)
// ASSERT n.p IS UNIQUE (dropping a missing one is a notification), the analytical-mode rules of
// Memgraph 3.8 (no switch while constraints exist, no constraints or text indexes created in
// it). Not verified against a running Memgraph: CREATE TEXT/VECTOR INDEX with an existing name
// fails (Memgraph has no IF NOT EXISTS for them): a loader re-running PostLoad must tolerate
// "already exists" errors.
package cypher
