package batch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// tracked is what the batcher knows of one batch in this run.
type tracked struct {
	mu     sync.Mutex
	rec    Record
	loaded bool
	polled time.Time // last poll (or submission)
	mine   bool      // submitted by this run: its estimate is on this run's budget
}

// tracker returns the tracked entry of a batch id.
func (b *Batcher) tracker(id string) *tracked {
	b.tmu.Lock()
	defer b.tmu.Unlock()
	t, ok := b.tracked[id]
	if !ok {
		t = &tracked{}
		b.tracked[id] = t
	}
	return t
}

// track records a batch this run has just submitted.
func (b *Batcher) track(rec Record, mine bool) {
	t := b.tracker(rec.ID)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rec, t.loaded, t.polled, t.mine = rec, true, time.Now(), mine
}

// refresh brings a batch up to date: it polls the provider when the last poll is at least Poll
// old (a batch this run has not polled yet, at once), and delivers the batch when it has ended,
// or records it Lost when the provider no longer knows it. It reports whether the batch is
// delivered or lost.
func (b *Batcher) refresh(ctx context.Context, id string) (bool, error) {
	t := b.tracker(id)
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.loaded || t.rec.State == Queued || t.rec.State == Submitting {
		rec, ok, err := b.store.BatchRecord(ctx, id)
		if err != nil {
			return false, fmt.Errorf("reading batch %s: %w", id, err)
		}
		if !ok {
			return false, fmt.Errorf("reading batch %s: not in the checkpoint store", id)
		}
		t.rec, t.loaded = rec, true
	}
	switch t.rec.State {
	case Delivered, Lost:
		return true, nil
	case Queued, Submitting: // this run is still sending it
		return false, nil
	}
	if !wire.BatchEnded(t.rec.State) && time.Since(t.polled) >= b.opts.Poll {
		bt, lost, err := b.poll(ctx, t.rec)
		if err != nil {
			return false, fmt.Errorf("polling batch %s (%s): %w", id, t.rec.ProviderID, err)
		}
		t.polled = time.Now()
		if lost != "" {
			end := b.delivering(ctx, t.rec)
			err := b.end(ctx, t, &delivery{b: b, rec: &t.rec}, lost)
			end(t.rec, err)
			return true, err
		}
		if err := b.observe(ctx, t, bt); err != nil {
			return false, err
		}
	}
	if !wire.BatchEnded(t.rec.State) {
		return false, nil
	}
	end := b.delivering(ctx, t.rec)
	err := b.deliver(ctx, t)
	end(t.rec, err)
	return true, err
}

// observe records what a poll returned and logs a progress line when it changed.
func (b *Batcher) observe(ctx context.Context, t *tracked, bt wire.Batch) error {
	r := &t.rec
	changed := bt.Status != r.State || bt.RequestCounts.Completed != r.Completed || bt.RequestCounts.Failed != r.Failed
	if bt.Status != "" {
		r.State = bt.Status
	}
	if bt.ID != "" && bt.ID != r.ProviderID { // found in the provider's list under another id
		r.ProviderID = bt.ID
	}
	if bt.Status == wire.BatchFailed {
		r.Reason = b.reasonOf(bt)
	}
	r.OutputFile, r.ErrorFile = bt.OutputFileID, bt.ErrorFileID
	r.Completed, r.Failed = bt.RequestCounts.Completed, bt.RequestCounts.Failed
	r.UpdatedAt = time.Now().UTC()
	if err := b.store.UpdateBatch(ctx, *r); err != nil {
		return fmt.Errorf("recording batch %s: %w", r.ID, err)
	}
	if changed {
		b.opts.Log.Info("batch progress", "kind", r.Kind, "batch", r.ID, "provider_id", r.ProviderID, "state", r.State,
			"completed", r.Completed, "failed", r.Failed, "requests", r.Requests)
	}
	if changed && bt.Status == wire.BatchFailed {
		b.opts.Log.Warn("batch failed at the provider: its requests are submitted again", "batch", r.ID, "provider_id", r.ProviderID,
			"reason", r.Reason)
	}
	return nil
}

// Wait polls every batch a call found pending since the last Wait, every Poll, until all have
// ended and are delivered, and returns how many it waited for. It returns ErrStopped when stop
// closes first (the batches stay recorded; the next run polls them) and ctx's error when ctx
// ends.
func (b *Batcher) Wait(ctx context.Context, stop <-chan struct{}) (int, error) {
	b.mu.Lock()
	ids := make([]string, 0, len(b.waiting))
	for id := range b.waiting {
		ids = append(ids, id)
	}
	b.mu.Unlock()
	slices.Sort(ids)
	n := len(ids)
	if n > 0 {
		b.opts.Log.Info("waiting for batches", "kind", b.kind.Kind(), "batches", n)
	}
	for len(ids) > 0 {
		open := ids[:0]
		for _, id := range ids {
			ended, err := b.refresh(ctx, id)
			if err != nil {
				return n, err
			}
			if !ended {
				open = append(open, id)
			}
		}
		ids = open
		if len(ids) == 0 {
			break
		}
		t := time.NewTimer(b.opts.Poll)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return n, ctx.Err()
		case <-stop:
			t.Stop()
			return n, pacing.ErrStopped
		}
	}
	b.mu.Lock()
	clear(b.waiting)
	b.mu.Unlock()
	return n, nil
}

// Recover settles the batches an earlier run left half-sent: a batch still queued was never
// sent and is dropped; one that was submitting is looked up at the provider by its metadata
// and adopted when it exists, else dropped (its requests are asked again). Stale input files
// are removed. A run calls it once before its first request.
func (b *Batcher) Recover(ctx context.Context) error {
	recs, err := b.store.OpenBatches(ctx, b.kind.Kind())
	if err != nil {
		return fmt.Errorf("reading open batches: %w", err)
	}
	for _, r := range recs {
		if r.State != Queued && r.State != Submitting {
			continue
		}
		if r.State == Submitting && r.InputFile != "" {
			bt, ok, err := b.find(ctx, r)
			if err != nil {
				return err
			}
			if ok {
				r.ProviderID, r.State = bt.ID, bt.Status
				if r.State == wire.BatchFailed {
					r.Reason = b.reasonOf(bt)
				}
				r.UpdatedAt = time.Now().UTC()
				if err := b.store.UpdateBatch(ctx, r); err != nil {
					return fmt.Errorf("recording batch %s: %w", r.ID, err)
				}
				b.opts.Log.Info("batch found at the provider after an interrupted submission", "batch", r.ID, "provider_id", bt.ID, "state", bt.Status)
				continue
			}
		}
		if err := b.store.DropBatch(ctx, r.ID); err != nil {
			return fmt.Errorf("dropping batch %s: %w", r.ID, err)
		}
		b.opts.Log.Info("batch never submitted: its requests are asked again", "batch", r.ID, "requests", r.Requests)
	}
	dir := b.opts.SpoolDir
	if dir == "" {
		dir = os.TempDir()
	}
	stale, _ := filepath.Glob(filepath.Join(dir, b.opts.SpoolPrefix+"*.jsonl"))
	for _, f := range stale {
		os.Remove(f)
	}
	return nil
}

// maxListPages bounds the pages of the provider's batch list Recover reads for one batch.
const maxListPages = 20

// find looks for the provider batch whose metadata names r (or that has r's provider id),
// newest first, down to an hour before r was recorded. A provider that serves no batch list
// (HTTP 404 or 410) has none of them.
func (b *Batcher) find(ctx context.Context, r Record) (wire.Batch, bool, error) {
	after := ""
	oldest := r.CreatedAt.Add(-time.Hour).Unix()
	for range maxListPages {
		page, err := b.api.List(ctx, after, 100)
		if gone(err) { // no batch list at the provider: nothing to find
			return wire.Batch{}, false, nil
		}
		if err != nil {
			return wire.Batch{}, false, fmt.Errorf("listing batches to find %s: %w", r.ID, err)
		}
		for _, bt := range page.Data {
			if bt.Metadata[MetaBatch] == r.ID || (r.ProviderID != "" && bt.ID == r.ProviderID) {
				return bt, true, nil
			}
			if bt.CreatedAt > 0 && bt.CreatedAt < oldest {
				return wire.Batch{}, false, nil
			}
		}
		if !page.HasMore || len(page.Data) == 0 {
			return wire.Batch{}, false, nil
		}
		after = page.Data[len(page.Data)-1].ID
	}
	return wire.Batch{}, false, nil
}
