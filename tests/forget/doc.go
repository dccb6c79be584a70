// Package forget tests `backfill forget` and `sources[].sync: mirror` through the real binary:
// a speaker's messages holding a planted string are forgotten from a multi-group job loaded
// into Neo4j (BACKFILL_NEO4J_URI, held exclusively) and exported as Parquet and CYPHERL, and no
// file the job owns, no export and no Neo4j property may hold the string afterwards; the other
// groups stay byte for byte as they were, and the changed group equals a fresh run on the input
// without those rows. The LLM is the project's stub (llm/stub) answering some extractions
// badly, so the failed-units file holds answers too. Also the dry run, the rows skipped while
// the source still holds them, an unknown group, and the mirror guard. The input is generated
// by the tests. There is no library code here.
package forget
