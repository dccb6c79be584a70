// Package shards tests `backfill run --shard I/N` as deploy/ runs it: four shard processes
// started at once, each with its own checkpoint, load the same Neo4j server
// (BACKFILL_NEO4J_URI, held exclusively), and the graph they leave must equal the graph of one
// unsharded run, property for property. The LLM is the offline responder; the input is the
// LoCoMo dataset (LOCOMO, default ../shared/datasets/locomo/locomo10.json next to the repo).
// There is no library code here.
package shards
