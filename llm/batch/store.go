package batch

import (
	"context"

	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/cache"
)

// The records of batches and their requests, their states and kinds: package batchrec, which
// the checkpoint store and the run report read without the batchers.
type (
	Record  = batchrec.Record
	Request = batchrec.Request
)

// States of a batch and statuses of a request line (batchrec).
const (
	Queued         = batchrec.Queued
	Submitting     = batchrec.Submitting
	Delivered      = batchrec.Delivered
	Lost           = batchrec.Lost
	ReqPending     = batchrec.ReqPending
	ReqValid       = batchrec.ReqValid
	ReqInvalid     = batchrec.ReqInvalid
	ReqFailed      = batchrec.ReqFailed
	ReqUnfinished  = batchrec.ReqUnfinished
	ReqLost        = batchrec.ReqLost
	ReqForgotten   = batchrec.ReqForgotten
	KindChat       = batchrec.KindChat
	KindEmbeddings = batchrec.KindEmbeddings
)

// Store records batches and their requests; the checkpoint store satisfies it. Every
// method is one transaction.
type Store interface {
	AddBatch(ctx context.Context, b Record) error
	UpdateBatch(ctx context.Context, b Record) error
	// DropBatch deletes a batch that was never created at the provider, with its requests.
	DropBatch(ctx context.Context, id string) error
	BatchRecord(ctx context.Context, id string) (Record, bool, error)
	// OpenBatches lists the batches of a kind that are open (Record.Open), oldest first.
	OpenBatches(ctx context.Context, kind string) ([]Record, error)
	AddBatchRequest(ctx context.Context, r Request) error
	// BatchRequests lists the rows of a request key, oldest first.
	BatchRequests(ctx context.Context, key string) ([]Request, error)
	// BatchRequestIn returns the row of a key in one batch.
	BatchRequestIn(ctx context.Context, batch, key string) (Request, bool, error)
	// SettleBatchRequests records delivered rows (a valid row is deleted) and writes the cache
	// entries of the valid answers.
	SettleBatchRequests(ctx context.Context, rows []Request, entries []cache.Keyed) error
	// FinishBatch marks the rows of the batch still pending as unfinished (ReqLost when b is
	// Lost), adds their number to b.Unfinished and records b (delivered or lost); it returns
	// that number.
	FinishBatch(ctx context.Context, b Record) (int, error)
	// ForgetBatchRequests deletes the rows of the keys that are no longer pending.
	ForgetBatchRequests(ctx context.Context, keys []string) error
}
