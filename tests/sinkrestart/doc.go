// Package sinkrestart tests that a `backfill run` loading into Neo4j survives the database
// crashing in the middle of the load (docs/testing.md). There is no library code here.
//
// The test starts its own embedded Neo4j (testinfra/neo4j/target/neo4j-launcher.jar, built by
// `scripts/neo4j.sh start`) on a free loopback port with a private home directory, so it can kill
// and restart it without touching the shared test server (BACKFILL_NEO4J_URI). A restart uses
// the same home and port and brings the same database back. The job is the first LoCoMo
// conversation with the offline LLM and embedder, record_time: reference and sink.batch_size
// 25, so every run yields the same graph in many small transactions.
//
// Contract checked:
//   - reference: an uninterrupted run's graph (harness.Neo4jSnapshot) is the expected graph;
//   - retries through: Neo4j SIGKILLed once the load has written part of the graph and
//     restarted about a second later; with the default sink.max_attempts and
//     sink.retry_seconds the run logs "retrying after a transient error", exits 0 and leaves
//     exactly the reference graph;
//   - fails cleanly and resumes: with sink.max_attempts 2 and sink.retry_seconds 0.1, Neo4j
//     SIGKILLed mid-load and kept down makes the run exit 1 with a one-line error about the
//     sink's connection (no panic); after a restart the same job resumes, loads the unrecorded
//     groups (load units > 0) and leaves exactly the reference graph.
//
// Without the launcher jar the test fails with how to build it, or is skipped when
// BACKFILL_SKIP_INTEGRATION=1. LOCOMO names the dataset file (default
// ../shared/datasets/locomo/locomo10.json next to the repo); without it the test is skipped.
package sinkrestart
