// Package loaders is the input side of backfill: it streams the rows of local (or, through FS,
// remote) files in JSON Lines, Parquet, LoCoMo or LongMemEval format and turns each row into a
// graph.Episode, or into a Bad row for the quarantine.
//
// Contract:
//   - Read visits the files a Spec matches in sorted order and their rows in file order, calling
//     emit once per row with exactly one of Result.Episode or Result.Bad set. Rows are streamed:
//     one JSON line, one Parquet page per projected column, or one benchmark sample/question is
//     in memory at a time.
//   - A row that cannot become an episode (missing or unparseable group, reference time or body,
//     invalid UTF-8, a body over Spec.MaxBodyBytes, a JSON line that is not an object, a group id
//     rejected by GroupPolicy "reject") is emitted as a Bad naming the file, the 1-based row and
//     the input field, and reading goes on. A file that cannot be read at all (unreadable, a
//     corrupt Parquet footer, a missing or wrongly typed Parquet column, a broken benchmark JSON
//     array) stops Read with an error naming the file.
//   - Episodes are deterministic: UUID = graph.EpisodeID(group, recordKey), where recordKey is the
//     mapped record key or graph.ContentKey(group, referenceTime, speaker, body); Seq =
//     fileIndex<<32 | row; ReferenceTime is UTC; IngestedAt is left zero for the store to set.
//   - Group ids are limited to [A-Za-z0-9_-] (Graphiti's rule). GroupPolicy "map" rewrites any
//     other value with MapGroupID (and reports the original in Result.OriginalGroup); "reject"
//     quarantines the row.
//   - Reference times must lie in years 1678..2261, the span of an int64 count of nanoseconds,
//     which is how the episode Parquet file stores them; zero-valued sentinel dates are bad rows.
//   - JSON records (JSON Lines rows whose body is a JSON object, Spec.Record and
//     Mapping.Object): the object id (a row field), the declared facts (records.Decl) and the
//     text-field paths are read from the full record into graph.Record; then the content is
//     pruned (records.Pruner) and Result.FullBody keeps the body as it was. An episode's id does
//     not depend on pruning (the content key hashes the full body). A record whose body is not a
//     JSON object under declared facts or text fields is a Bad row; other formats reject record
//     options (drop, keep, text fields, facts, object) with an error.
//   - EpisodeWriter writes the episode Parquet schema that `backfill import` produces; Read with
//     the default Mapping reads it back into identical episodes (ids and Seq included, when it is
//     the first file of its Spec).
package loaders
