// Package matrix runs every command of the binary on every kind of checkpoint store (a local
// file, an s3:// store on the versitygw gateway) crossed with every sink that runs here (none,
// Neo4j, FalkorDB; each with its Parquet and CYPHERL exports) and every LLM mode (online, and
// batch run with --no-wait, then to the end), through `backfill llm-stub`, on the demo job: each
// command either works or fails with the reason the table names. The outcomes are written into
// docs/matrix.md (go test ./tests/matrix -update); the test fails when they differ from it, when
// `backfill --help` lists a command the matrix does not cover, or when the job spec accepts a
// sink kind the matrix does not know. Memgraph cannot run here: its cells say so, and its own
// workflow (.github/workflows/memgraph.yml) runs the sink against its container. There is no
// library code here.
package matrix
