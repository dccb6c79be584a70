package pipeline

import (
	"context"
	"log/slog"
	"path/filepath"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/report"
)

// batchOptions are the batch.Options of the job's batchers (llm.batch); input files are written
// next to the checkpoint store.
func batchOptions(j *Job, checkpoint string, log *slog.Logger, stop <-chan struct{}) batch.Options {
	o := j.LLM.Batch.Options()
	o.SpoolDir, o.SpoolPrefix, o.Job, o.Stop, o.Log = filepath.Dir(checkpoint), filepath.Base(checkpoint)+".batch-", j.Name, stop, log
	return o
}

// BatchSet is the batchers of a run (chat, embeddings) as one stages.Batches.
type BatchSet []*batch.Batcher

// UseBatches turns batch mode on for the clients the job asks it of (llm.mode, embedder.mode)
// and returns their batchers; their input files are written next to the store.
func (c *Clients) UseBatches(j *Job, store *checkpoints.Store, log *slog.Logger, stop <-chan struct{}) BatchSet {
	var set BatchSet
	opts := batchOptions(j, store.Path(), log, stop)
	opts.Observer = c.batchObs
	if j.LLM.Mode == ModeBatch {
		set = append(set, c.LLM.UseBatches(store, opts))
	}
	if j.Embedder.Mode == ModeBatch {
		set = append(set, c.Embedder.UseBatches(store, opts))
	}
	return set
}

// Recover settles what an earlier run left half-sent (batch.Batcher.Recover).
func (s BatchSet) Recover(ctx context.Context) error {
	for _, b := range s {
		if err := b.Recover(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Flush submits what every batcher queued.
func (s BatchSet) Flush(ctx context.Context) error {
	for _, b := range s {
		if err := b.Flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Wait waits for the batches of every batcher.
func (s BatchSet) Wait(ctx context.Context, stop <-chan struct{}) (int, error) {
	total := 0
	for _, b := range s {
		n, err := b.Wait(ctx, stop)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Release forgets the requests of the finished calls.
func (s BatchSet) Release(ctx context.Context) error {
	for _, b := range s {
		if err := b.Release(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Report sums the batchers' usage and counts the open batches of the store.
func (s BatchSet) Report(ctx context.Context, store *checkpoints.Store) (*report.Batch, error) {
	r := &report.Batch{}
	for _, b := range s {
		r.Sum(b.Usage())
	}
	for _, kind := range []string{batch.KindChat, batch.KindEmbeddings} {
		open, err := store.OpenBatches(ctx, kind)
		if err != nil {
			return nil, err
		}
		r.Pending += len(open)
	}
	return r, nil
}
