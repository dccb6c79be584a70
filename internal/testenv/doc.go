// Package testenv connects integration tests to the real servers that scripts/neo4j.sh,
// scripts/falkordb.sh, scripts/versitygw.sh, scripts/local_llm.sh, scripts/local_embed.sh and
// scripts/otelcol.sh start: embedded Neo4j 5.26 over Bolt, FalkorDB (redis-server with the FalkorDB
// module) over RESP, the versitygw S3 gateway, a small instruct model behind llama.cpp's
// OpenAI-compatible server, all-MiniLM-L6-v2 behind an OpenAI-compatible embeddings server and an
// OpenTelemetry Collector receiving OTLP.
//
// Contract:
//   - Servers are found through environment variables only: BACKFILL_NEO4J_URI for Neo4j;
//     BACKFILL_FALKORDB_URI for FalkorDB;
//     BACKFILL_S3_ENDPOINT, BACKFILL_S3_ACCESS_KEY, BACKFILL_S3_SECRET_KEY and (optional,
//     default "us-east-1") BACKFILL_S3_REGION for S3; BACKFILL_LOCAL_LLM_URL and
//     BACKFILL_LOCAL_LLM_MODEL for the local model server; BACKFILL_LOCAL_EMBED_URL and
//     BACKFILL_LOCAL_EMBED_MODEL for the local embedding server; BACKFILL_OTELCOL_ENDPOINT,
//     BACKFILL_OTELCOL_GRPC_ENDPOINT, BACKFILL_OTELCOL_TRACES and BACKFILL_OTELCOL_METRICS for the
//     collector (Collector). `eval "$(scripts/neo4j.sh start)"`,
//     `eval "$(scripts/falkordb.sh start)"`, `eval "$(scripts/versitygw.sh start)"`, `eval "$(scripts/local_llm.sh start)"`
//     and `eval "$(scripts/local_embed.sh start)"` set them.
//   - When a required variable is unset the test FAILS with a message naming the script that
//     starts the server, unless BACKFILL_SKIP_INTEGRATION=1, in which case it is skipped.
//     Integration tests are skipped only when explicitly disabled. The exception is Memgraph,
//     which no script can install here: Memgraph reads BACKFILL_MEMGRAPH_URI, skips the test
//     with a line naming the workflow that runs it (.github/workflows/memgraph.yml, Memgraph's
//     official container) when it is unset, and returns it as it is when set, so a failure
//     against a configured server is never a skip.
//   - NewBucket creates a uniquely named bucket, uploads the given objects and removes both when
//     the test ends, so tests sharing one gateway never see each other's data.
//   - Neo4jExclusive serialises tests of different packages (separate `go test` processes) that
//     use the single Community database, with a file lock held until the test ends.
//   - LoCoMo finds the LoCoMo dataset (LOCOMO, else ../shared/datasets/locomo/locomo10.json
//     beside the repository root), which is not part of the repository and cannot be installed
//     by a test: when it is absent the test is skipped with a reason naming the path, never failed.
//   - Nothing here talks to any address but the configured endpoints, and S3 clients use static
//     credentials only (no credential chain, so no instance-metadata lookups).
package testenv
