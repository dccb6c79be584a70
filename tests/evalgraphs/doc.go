// Package evalgraphs runs `backfill eval` and `backfill diff` on every graph the tool writes
// (issue 42): the demo loaded into the shared Neo4j and FalkorDB by `backfill run`, its
// checkpoint and its Parquet export must score the same against the demo's gold file, a small
// LoCoMo-format file (testdata/locomo.json) the same with --dataset, and diff must find no
// change between a checkpoint and the graphs loaded from it, saying which kind of graph each
// side is. There is no library code here.
//
// Each test holds both servers exclusively (testenv.Neo4jExclusive, then
// testenv.FalkorDBExclusive, the order every test takes them in) and empties them first.
package evalgraphs
