// Package cypherl exports the graph as a CYPHERL script: one Cypher statement per line, each
// ending with ";", that `mgconsole < file` imports into Memgraph (or cypher-shell into Neo4j with
// the neo4j dialect). With the falkordb dialect every line is a redis-cli command instead,
// `GRAPH.QUERY "<group graph>" "<statement>"` (and `GRAPH.CONSTRAINT "CREATE" "<group graph>" …`
// for the uuid uniqueness constraints), that `redis-cli -u redis://host:port < file` imports into
// FalkorDB.
//
// Contract:
//   - Order: the schema statements of sinks/cypher PreLoad (node lookup indexes), with
//     Options.Bulk the BulkBegin statements, then nodes (Episodic, Entity, Community), then edges
//     (RELATES_TO, MENTIONS, HAS_MEMBER), with Options.Bulk the BulkEnd statements, then PostLoad
//     (the other range indexes, vector and text indexes, constraints).
//   - FalkorDB (cypher.GraphPerGroup): the whole order above, group by group, each group's
//     statements into its graph (cypher.GraphName); PreLoad is Graphiti's indexes.
//   - Nodes and edges are written as `UNWIND [ {…}, … ] AS row <statement>;` with the exact
//     MERGE statements and rows of sinks/cypher, batched per statement under the batching rule
//     of sinks/cypher (cypher.Limits): at most BatchSize rows (default 2000) and BatchBytes
//     bytes of row literals (default 2 MiB) per line. Statements (entities with different label
//     sets have different ones) are flushed at the end of each kind in order of first use.
//   - Literals (cypher.WriteLiteral): strings in double quotes with \\ \" \n \r \t \b \f
//     escapes; other control characters, U+2028, U+2029 and ";" as \uXXXX (so a line splitter that ignores quotes still
//     sees one statement per line); other non-ASCII text as raw UTF-8; invalid UTF-8 becomes
//     U+FFFD. Floats always carry a "." or an exponent (never "e+"); a float64 that is exactly a
//     float32 (embeddings) is written with the float32's shortest digits. NaN and ±Inf are
//     errors. Map keys that are not plain identifiers are backtick-quoted.
//   - Datetimes are `datetime("2026-03-02T00:00:00Z")`: RFC 3339 in UTC with "Z" and at most six
//     fractional digits. Memgraph versions with the ZonedDateTime type parse "Z" as Etc/UTC
//     (checked against its temporal parser tests, not against a running server); Neo4j accepts
//     the same text. FalkorDB: times are the strings graphiti-core stores
//     ("2026-03-02T00:00:00+00:00", cypher.TimeText), strings escape no \uXXXX (FalkorDB's parser
//     knows none) and the redis-cli layer quotes the statement ("…" with \\ \" \n \r \t and
//     \xHH for other control bytes).
//   - The script only MERGEs: it never deletes nodes or relationships or removes labels that the
//     database already holds for the same groups. Import it into an empty database, or use the
//     Bolt loader (sinks/graphdb.Loader), which settles every group it writes, for updates.
//   - Executed statement by statement on Neo4j, the neo4j-dialect script gives the same graph
//     as the Bolt loader (tested against a real server; datetimes from the script carry the
//     offset Z, the loader's the zone id UTC: the same instants). The falkordb script, sent line
//     by line to a real FalkorDB as inline commands (split like redis-cli splits them), gives
//     the same graphs as the loader.
//   - Output is deterministic: the same Source gives the same bytes. The vector dimension is
//     Options.VectorDims, or when 0 the length of the first embedding found (entities, then facts,
//     then communities); no embedding at all means no vector index.
package cypherl
