// Package batchrec holds what is recorded of provider batches (llm.mode or embedder.mode
// batch): a batch (Record) and its request lines (Request) as the checkpoint store keeps them,
// their states and kinds, and the batchers' usage of a run (Usage) as the run report holds it.
// It is a leaf: the checkpoint store and the report read these types without the batchers
// (package llm/batch), which write them.
package batchrec
