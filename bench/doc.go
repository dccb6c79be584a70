// Command bench is the benchmark harness behind `make bench`. It builds cmd/backfill, runs the
// measurements below against the real binary and writes bench/results.json and a readable
// bench/results.md (both rewritten after every step, so an interrupted run keeps what it has).
// The numbers are measurements on the machine at hand, not pass/fail thresholds.
//
//   - locomo: LoCoMo (all 10 conversations) through providers/stub on loopback at a fixed latency, with
//     the default settings: LLM calls and prompt/completion tokens per episode over all stages,
//     the prompt tokens the stub reports cached under OpenAI's prompt-cache rule
//     (stub.OpenAIPrefixCache) and those shared with an earlier request whatever their length,
//     and the calls per second achieved against the ceiling concurrency ÷ latency.
//   - replay: the same job again on a copy of its checkpoint with every stage's output and
//     unit record removed but the LLM cache kept, with the stub shut down: episodes per second
//     over all stages with every answer from the cache; then the no-op resume of the finished
//     checkpoint. The replay's export must equal the original's.
//   - eval: LoCoMo (jobs/examples/locomo.yaml), the gold set (jobs/examples/gold.yaml) and the
//     demo built with the offline responder and scored by `backfill eval`: LoCoMo retrieval
//     recall@5/10/20 by category (evidence turn and session, and answer string) in the three
//     modes (the graph's facts, facts beside episodes, episodes alone) and the gold-file scores,
//     with the commands that reproduce them. A baseline for the mechanics, not for extraction quality.
//   - tokens: the levers of extraction's calls and prompt tokens, one fresh LoCoMo run through
//     providers/stub per row, from today's two-call settings to the defaults, each row adding one lever
//     (one call, the shorter prompt, previous episodes within stages.extract.context_tokens,
//     chit-chat not asked), then the defaults in two-call mode: calls, prompt, cached and
//     shared-prefix tokens per episode, and the eval scores of that LoCoMo graph and of the gold
//     set built with the same settings. The row "previous prompt" reads the extract_graph prompt
//     before the change from bench/testdata/prompts-v1 (llm.prompts_dir).
//   - memory: synthetic JSON Lines (fixed seed, groups of -group-size episodes) through every
//     stage with the offline responder at each of -sizes, and through ingest alone (`backfill
//     plan`) at each of -ingest-sizes: the child's peak RSS (rusage) and the peak sampled per
//     stage (/proc/PID/status VmRSS).
//   - propagate: BenchmarkPropagate1M of stages/community (label propagation on 1M facts).
//   - tickets: the bundled ticket change log (examples/tickets.jsonl) through providers/stub, once per
//     set of JSON record options from none to all of jobs/examples/tickets.yaml's (pruning,
//     mapping.object, facts, json.text_fields) and once with stages.extract.llm: off: prompt
//     tokens and calls per record, and whether the declared facts with their intervals are the
//     same with and without the LLM for text.
//   - bolt: BenchmarkNeo4jCeiling (the plain driver's configurations) and BenchmarkNeo4jLoad (a
//     fresh Bolt load against the best ceiling of the same iteration, with and without
//     embeddings) of sinks/graphdb, 3 iterations each, against the Neo4j of BACKFILL_NEO4J_URI,
//     or one scripts/neo4j.sh starts (and stops) for it with -neo4j auto. results.md shows
//     ceiling and loader rows/s and the loader's share of the ceiling.
//   - falkordb: BenchmarkFalkorDBCeiling (a plain go-redis client's configurations) and
//     BenchmarkFalkorDBLoad (a fresh load against the best of three configurations in
//     the same iteration, with and without embeddings, with 2 and 1 sessions) of sinks/graphdb,
//     3 iterations each, against the FalkorDB of BACKFILL_FALKORDB_URI, or one
//     scripts/falkordb.sh starts (and stops) for it with -falkordb auto.
//   - parquet: BenchmarkParquetReaders of loaders (build tag arrowbench): 1M generated rows
//     read by the parquet-go input reader and by arrow-go's pqarrow record reader, to episodes
//     and decoded only: time, rows/s, allocations and the peak live heap.
//   - sync: LoCoMo through llm/stub as in the locomo step, with a local checkpoint and with an
//     s3:// one on the versitygw of BACKFILL_S3_* (snapshots at the default 300 s and every 10 s):
//     wall time, snapshots, seconds per snapshot and bytes uploaded; then the finished store on a
//     fresh local copy: the restore's seconds and, over no-op resumes, one whole snapshot's
//     database and uploaded bytes and seconds. Not measured when BACKFILL_S3_* is unset.
//   - telemetry: LoCoMo through llm/stub as in the locomo step, and its cached replay, three runs
//     each exporting nothing, traces and metrics, and metrics only (OTLP/HTTP to the collector of
//     BACKFILL_OTELCOL_*, scripts/otelcol.sh), in rotating order: wall and CPU seconds of each
//     run, the spans the collector received and the load average at its start, and the medians'
//     differences. Not measured when BACKFILL_OTELCOL_* is unset.
//
// -merge (or BENCH_MERGE=1) starts from the existing results.json and replaces only the steps
// that run, so a long step (such as 1M episodes through every stage) can be measured alone;
// results.md then lists when each step was measured.
//
// Sections of results.md that other tools write between a "<!-- NAME -->" and a "<!-- /NAME -->"
// line (scripts/eval_local.sh, scripts/eval_graphiti.sh; hand-measured tables) are kept, at the
// end, when the file is rewritten.
//
// The stub's answers are the offline responder's: a baseline for the mechanics (pacing,
// caching, memory), not a measure of extraction quality.
package main
