// Package loaders is the input side of backfill: it streams the rows of local (or, through FS,
// remote) files in JSON Lines, Parquet, LoCoMo or LongMemEval format and turns each row into a
// graph.Episode, or into a Bad row for the quarantine.
//
// Contract:
//   - Spec.Path names files through FS.Glob: an existing name is taken literally (glob
//     characters and all), a directory means its files (not hidden ones, not recursively), a
//     pattern matches with MatchPath ("**" spans directories). Anything named or matched that
//     cannot be read (a dangling symlink, an unreadable file or directory, a FIFO) is an error
//     naming it, never skipped.
//   - Read visits the files a Spec matches in sorted order and their rows in file order, calling
//     emit once per row with exactly one of Result.Episode or Result.Bad set. Rows are streamed:
//     one JSON line, one Parquet page per projected column, or one benchmark sample/question is
//     in memory at a time.
//   - A row that cannot become an episode (missing or unparseable group, reference time or body,
//     invalid UTF-8, a body over Spec.MaxBodyBytes, a JSON body past a shape bound (checkShape:
//     MaxJSONDepth, MaxJSONValues, MaxJSONPathBytes, checked in one pass before it is decoded, so
//     a record costs in proportion to its bytes), a JSON line that is not an object, a group id
//     rejected by GroupPolicy "reject", a Parquet value outside its type, a naive time the
//     timezone skips) is emitted as a Bad naming the file, the 1-based row and the input field,
//     and reading goes on. Every Parquet type Read accepts is read exactly (unsigned integers
//     unsigned, UINT64 above the int64 range as its digits). A Parquet file whose footer or page
//     headers claim more than the file holds is emitted as one Bad with row 0 (the file as a
//     whole) before the decoder allocates what they claim. A file that cannot be read at all
//     (unreadable, a corrupt Parquet footer, a missing or wrongly typed Parquet column, a broken
//     benchmark JSON array, a panic inside parquet-go) stops Read with an error naming the file.
//   - Episodes are deterministic: UUID = graph.EpisodeID(group, recordKey), where recordKey is the
//     mapped record key or graph.ContentKey(group, referenceTime, speaker, body) (a blank record
//     key, group id, LoCoMo dia_id or LongMemEval session id is none: never one key shared by
//     distinct rows); Seq =
//     fileIndex<<32 | row; ReferenceTime is UTC; IngestedAt is left zero for the store to set.
//   - Group ids are limited to [A-Za-z0-9_-] (Graphiti's rule). GroupPolicy "map" rewrites any
//     other value with MapGroupID, injective in practice (128 bits of SHA-256), and reports the
//     original in Result.OriginalGroup; "reject" quarantines the row. Result.File, Row and
//     GroupField locate a good row for a caller that rejects it later.
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
//   - Parquet input is read with parquet-go, only the mapped columns, page by page in batches of
//     1,024 values. It was measured against arrow-go's pqarrow record reader (batches of 1,024,
//     the same projection, the same row builder; arrow_bench_test.go, build tag arrowbench, and
//     the bench step "parquet") on 1M generated rows, 4 of 7 columns mapped, on 2 cores shared
//     with other work. Medians of 6 iterations: to episodes parquet-go 3.79 s, arrow-go 3.29 s;
//     decoding alone (no row built) 0.83 s against 0.95 s; six other sessions ranged from
//     arrow-go twice as fast to 1.7 times slower, so neither is clearly faster here. Steady
//     across runs: arrow-go allocated more bytes (1.36 GB against 1.17 GB to episodes, 487 MB
//     against 291 MB decoding, in fewer allocations) and held more live heap (median peak
//     10.8 MiB against 7.4 MiB to episodes). On the awkward inputs both read unsigned integers (UINT64 above the
//     int64 range too), INT96 times, UUID keys and dictionary pages; both refuse a mapped DECIMAL
//     and a nested list; both return an error, neither panicking, on a truncated file, corrupt
//     page bytes (parquet-go by its CRC check) and a corrupt Thrift footer. arrow-go does not
//     clearly win and would add its dependency tree to the binary, so parquet-go stays the reader.
package loaders
