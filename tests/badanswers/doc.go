// Package badanswers holds the test of `backfill run` against a model that answers badly: the
// LLM stub (providers/stub) answers a seeded share of the extraction requests with a truncated
// (finish_reason "length"), a malformed or an empty answer on every attempt. The run must fail
// those units, not itself: exit 3 with "N units failed", every other unit's output equal to a
// clean run's, each failure recorded with its reason and raw answer in the store and in
// <checkpoint>.failed.jsonl, and the next run must ask only the failed units and end with the
// clean run's graph. There is no library code here.
package badanswers
