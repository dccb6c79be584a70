// Package parquet exports the graph as Parquet tables, one file per table, written with
// github.com/parquet-go/parquet-go.
//
// Contract:
//   - Export writes episodes.parquet, entities.parquet, facts.parquet, fact_versions.parquet,
//     mentions.parquet, communities.parquet and has_member.parquet into a directory (created if
//     missing). Each file is written to a temporary name and renamed into place when complete.
//   - Column names are the Graphiti property names (docs/architecture.md, "The data model": uuid,
//     group_id, name, summary, created_at, valid_at, invalid_at, expired_at, fact,
//     fact_embedding, name_embedding, episodes, entity_edges, source_node_uuid, target_node_uuid, labels, …). Episodes also carry
//     speaker (null when empty), seq and record_key; entities carry attributes as canonical JSON
//     text (null when there are none); labels lists "Entity" then the custom labels. Mentions and
//     HAS_MEMBER edges name their endpoints source_node_uuid (episode / community) and
//     target_node_uuid (entity). The exact schemas are in testdata/schemas.golden.
//   - Times are TIMESTAMP(MICROS, isAdjustedToUTC=true); optional times are nullable columns.
//     Embeddings are nullable list<float> (null when the record has none).
//   - Rows are written group by group in the Source's order, in bounded buffers, with a row group
//     at most every RowGroupRows rows (fewer for tables with embeddings), so memory stays bounded
//     by one group: its episodes and its entity_edges map (sinks.EntityEdges). Exporting the same
//     data twice gives byte-identical files.
package parquet
