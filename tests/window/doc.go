// Package window holds the tests of windowed extraction (stages.extract.window) through the
// binary against `backfill llm-stub`, on two LoCoMo conversations: a batch-mode run gives an
// export byte-identical to an online run's; a run interrupted twice while it extracts and run
// again ends with the same export without the stub answering any request twice (no answered
// window asked again); two shards (--shard I/2) store the same extractions under the same
// fingerprints as one unsharded run; forgetting an episode in the middle of a window asks that
// window again and no other (the others come from the LLM cache), and forgetting one of the
// stages.extract.context episodes before the next window asks its window and each window that
// starts within that many episodes after it (their context shifts). There is no library code here.
package window
