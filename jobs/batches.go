package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm/batch"
)

// Request modes (llm.mode, embedder.mode).
const (
	ModeOnline = "online"
	ModeBatch  = "batch"
)

// validateModes checks llm.mode and embedder.mode: batch mode needs an OpenAI-compatible
// provider with a batch API and the cache (batch answers reach the calls through it).
func (j *Job) validateModes() error {
	for _, m := range []struct{ key, mode, provider string }{
		{"llm.mode", j.LLM.Mode, j.LLM.Provider}, {"embedder.mode", j.Embedder.Mode, j.Embedder.Provider},
	} {
		switch m.mode {
		case ModeOnline:
		case ModeBatch:
			if m.provider != "openai" {
				return fmt.Errorf("validating job: %s: batch needs provider openai (a server with the files and batches API), not %q", m.key, m.provider)
			}
			if j.LLM.Cache != "on" {
				return fmt.Errorf("validating job: %s: batch needs llm.cache on (batch answers reach the calls through the cache)", m.key)
			}
		default:
			return fmt.Errorf("validating job: %s: %q is not online or batch", m.key, m.mode)
		}
	}
	return nil
}

// batchMode reports whether the chat model or the embedder sends batches.
func (j *Job) batchMode() bool { return j.LLM.Mode == ModeBatch || j.Embedder.Mode == ModeBatch }

// batchOptions are the batch.Options of the job's batchers; input files are written next to
// the checkpoint store.
func (j *Job) batchOptions(checkpoint string, log *slog.Logger, stop <-chan struct{}) batch.Options {
	b := j.LLM.Batch
	retries := *b.MaxRetries
	if retries == 0 {
		retries = -1 // none (0 is the llm default)
	}
	return batch.Options{MaxRequests: b.MaxRequests, MaxBytes: b.MaxBytes, MaxRetries: retries,
		FallbackOnline: b.FallbackOnline, Poll: time.Duration(b.PollSeconds * float64(time.Second)),
		SpoolDir: filepath.Dir(checkpoint), SpoolPrefix: filepath.Base(checkpoint) + ".batch-", Job: j.Name, Stop: stop, Log: log}
}

// batchSet is the batchers of a run (chat, embeddings) as one stages.Batches.
type batchSet []*batch.Batcher

// useBatches turns batch mode on for the clients the job asks it of.
func (c clients) useBatches(j *Job, store *checkpoints.Store, log *slog.Logger, stop <-chan struct{}) batchSet {
	var set batchSet
	opts := j.batchOptions(store.Path(), log, stop)
	if j.LLM.Mode == ModeBatch {
		set = append(set, c.llm.UseBatches(store, opts))
	}
	if j.Embedder.Mode == ModeBatch {
		set = append(set, c.embedder.UseBatches(store, opts))
	}
	return set
}

// Recover settles what an earlier run left half-sent (batch.Batcher.Recover).
func (s batchSet) Recover(ctx context.Context) error {
	for _, b := range s {
		if err := b.Recover(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Flush submits what every batcher queued.
func (s batchSet) Flush(ctx context.Context) error {
	for _, b := range s {
		if err := b.Flush(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Wait waits for the batches of every batcher.
func (s batchSet) Wait(ctx context.Context, stop <-chan struct{}) (int, error) {
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
func (s batchSet) Release(ctx context.Context) error {
	for _, b := range s {
		if err := b.Release(ctx); err != nil {
			return err
		}
	}
	return nil
}

// BatchReport is what a run in batch mode did with provider batches (Report.Batch).
type BatchReport struct {
	batch.Usage
	// Pending counts the batches of the store that have not ended (or whose answers are not
	// delivered yet) when the run ends; PendingStage names the stage a --no-wait run stopped
	// at, waiting for them.
	Pending      int    `json:"pending"`
	PendingStage string `json:"pending_stage,omitempty"`
}

// batchReport sums the batchers' usage and counts the open batches of the store.
func (s batchSet) report(ctx context.Context, store *checkpoints.Store) (*BatchReport, error) {
	r := &BatchReport{}
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
