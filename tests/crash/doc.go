// Package crash holds the crash and interrupt tests of `backfill run` (docs/testing.md): a LoCoMo job
// against providers/stub on loopback that loads the test Neo4j (BACKFILL_NEO4J_URI, held exclusively),
// killed with SIGKILL at seeded random points spread over the stages, the load included (aimed at
// a share of the rows written rather than at a time), and run again after each kill, or interrupted with SIGINT (drain, exit 130) and run again. The final
// Parquet export must equal an uninterrupted run's byte for byte, the graph in Neo4j must equal
// the uninterrupted load's, and no answer the checkpoint had committed before a kill may be
// requested again.
//
// The default run uses the first 3 LoCoMo conversations (about 1,450 episodes) and 10 kills.
// BACKFILL_CRASH_FULL=1 uses all 10 conversations and 20 kills; BACKFILL_CRASH_SEED picks
// another kill pattern; LOCOMO names the dataset file (default
// ../shared/datasets/locomo/locomo10.json next to the repo). There is no library code here.
package crash
