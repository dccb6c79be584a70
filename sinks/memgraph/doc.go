// Package memgraph loads a graph into Memgraph or Neo4j over Bolt in the Graphiti schema
// (DESIGN §5) with the Neo4j Go driver (Loader). The Cypher text it runs (schema statements for
// each dialect, batch MERGE statements and their rows, the statements that settle a load) comes
// from sinks/cypher, which the CYPHERL export (sinks/cypherl) uses too.
//
// Loader contract:
//   - Load writes whole groups, read from a sinks.Source one group at a time. Rows are batched
//     per statement, Options.BatchSize rows per explicit transaction; relationship batches go out only after every pending node batch, so
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
package memgraph
