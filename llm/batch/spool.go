package batch

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// spool is the batch being filled: its record and its input file on disk, so memory does not
// grow with the batch.
type spool struct {
	rec    Record
	path   string
	f      *os.File
	w      *bufio.Writer
	stages map[stageTask]int // request lines by stage and task
}

// stageTask names the usage counters a request counts in.
type stageTask struct{ stage, task string }

// resubmission says why a request is queued: for the first time, again after a trouble (an
// error line, a batch that left it undone, an unreadable answer: counted against MaxRetries),
// or again after the provider lost its batch.
type resubmission int

const (
	firstTime resubmission = iota
	afterTrouble
	afterLoss
)

// enqueue records it in the batch being filled (the store row first, then the input line) and
// returns ErrPending. A full batch (MaxRequests, MaxBytes) is submitted first. The request's
// estimated cost is booked on the budget when it is queued.
func (b *Batcher) enqueue(ctx context.Context, it Item, again resubmission) error {
	if b.stopped() {
		return pacing.ErrStopped
	}
	line, err := json.Marshal(wire.BatchInputLine{CustomID: it.Key, Method: http.MethodPost, URL: b.kind.Endpoint(), Body: it.Body})
	if err != nil {
		return fmt.Errorf("encoding batch line: %w", err)
	}
	line = append(line, '\n')
	if int64(len(line)) > b.opts.MaxBytes {
		return &transport.StatusError{Status: http.StatusRequestEntityTooLarge,
			Message: fmt.Sprintf("a request of %d bytes does not fit a batch file of llm.batch.max_bytes %d", len(line), b.opts.MaxBytes)}
	}
	full, err := b.add(ctx, it, line, again)
	if full != nil {
		if serr := b.submit(ctx, full); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	return ErrPending
}

// add queues one line under the lock and returns the batch it closed, if it had to.
func (b *Batcher) add(ctx context.Context, it Item, line []byte, again resubmission) (*spool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// Another call may have queued the same request since it was looked up.
	rows, err := b.store.BatchRequests(ctx, it.Key)
	if err != nil {
		return nil, fmt.Errorf("reading batch requests: %w", err)
	}
	if n := len(rows); n > 0 && rows[n-1].Status == ReqPending {
		b.waiting[rows[n-1].Batch] = true
		return nil, nil
	}
	est := b.opts.Price.Estimate(it.Prompt, it.Completion)
	if err := b.opts.Budget.Reserve(est); err != nil {
		return nil, err
	}
	b.opts.Budget.Settle(est, est) // booked now; corrected when the batch's answers are priced
	var full *spool
	if c := b.cur; c != nil && (c.rec.Requests >= b.opts.MaxRequests || c.rec.Bytes+int64(len(line)) > b.opts.MaxBytes) {
		full, b.cur = c, nil
	}
	if b.cur == nil {
		if b.cur, err = b.newSpool(ctx); err != nil {
			return full, err
		}
	}
	c := b.cur
	if err := b.store.AddBatchRequest(ctx, Request{Key: it.Key, Batch: c.rec.ID, Stage: it.Stage, Task: it.Task,
		Keys: it.Keys, Status: ReqPending}); err != nil {
		return full, fmt.Errorf("recording batch request: %w", err)
	}
	if _, err := c.w.Write(line); err != nil {
		return full, fmt.Errorf("writing batch file: %w", err)
	}
	c.rec.Requests++
	c.rec.Bytes += int64(len(line))
	c.rec.EstCostUSD += est
	c.stages[stageTask{it.Stage, it.Task}]++
	b.waiting[c.rec.ID] = true
	if o := b.opts.Observer; o != nil {
		o.Queued(ctx, c.rec.ID)
	}
	switch again {
	case afterTrouble:
		b.resubmits[it.Key]++
		b.usage.Resubmitted++
	case afterLoss:
		b.losses[it.Key]++
		b.usage.Resubmitted++
	}
	if it.Retry {
		b.kind.Count(it.Stage, it.Task, func(s *pacing.StageUsage) { s.Retries++ })
	}
	return full, nil
}

// newSpool records a new queued batch and opens its input file.
func (b *Batcher) newSpool(ctx context.Context) (*spool, error) {
	id, err := newBatchID()
	if err != nil {
		return nil, err
	}
	dir := b.opts.SpoolDir
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, b.opts.SpoolPrefix+id+".jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("creating batch file: %w", err)
	}
	now := time.Now().UTC()
	rec := Record{ID: id, Kind: b.kind.Kind(), Endpoint: b.kind.Endpoint(), State: Queued, CreatedAt: now, UpdatedAt: now}
	if err := b.store.AddBatch(ctx, rec); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("recording batch: %w", err)
	}
	if o := b.opts.Observer; o != nil {
		o.Opened(ctx, rec)
	}
	return &spool{rec: rec, path: path, f: f, w: bufio.NewWriterSize(f, 1<<20), stages: map[stageTask]int{}}, nil
}

// newBatchID is a local batch id: the time and 48 random bits.
func newBatchID() (string, error) {
	var r [6]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("making batch id: %w", err)
	}
	return "bf" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(r[:]), nil
}

// Flush submits the batch being filled, if any. When the run drains it drops it instead: the
// requests in it were never sent, and the next run asks them again.
func (b *Batcher) Flush(ctx context.Context) error {
	b.mu.Lock()
	s := b.cur
	b.cur = nil
	b.mu.Unlock()
	if s == nil {
		return nil
	}
	if b.stopped() {
		s.f.Close()
		os.Remove(s.path)
		b.mu.Lock()
		delete(b.waiting, s.rec.ID)
		b.mu.Unlock()
		if o := b.opts.Observer; o != nil {
			o.Submitted(ctx, s.rec, pacing.ErrStopped)
		}
		if err := b.store.DropBatch(context.WithoutCancel(ctx), s.rec.ID); err != nil {
			return fmt.Errorf("dropping queued batch: %w", err)
		}
		return nil
	}
	return b.submit(ctx, s)
}

// submit uploads a batch's input file and creates the batch, recording each step, then tracks
// it for polling. A run that dies in between leaves the batch recorded as submitting: Recover
// finds it at the provider by its metadata, or drops it when it was never created.
func (b *Batcher) submit(ctx context.Context, s *spool) (err error) {
	if o := b.opts.Observer; o != nil {
		defer func() { o.Submitted(ctx, s.rec, err) }()
	}
	rec := &s.rec
	if err := s.w.Flush(); err != nil {
		s.f.Close()
		return fmt.Errorf("writing batch file: %w", err)
	}
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("writing batch file: %w", err)
	}
	update := func() error {
		rec.UpdatedAt = time.Now().UTC()
		if err := b.store.UpdateBatch(context.WithoutCancel(ctx), *rec); err != nil {
			return fmt.Errorf("recording batch %s: %w", rec.ID, err)
		}
		return nil
	}
	rec.State = Submitting
	if err := update(); err != nil {
		return err
	}
	file, err := b.api.Upload(ctx, s.path)
	if err != nil {
		return fmt.Errorf("uploading batch %s: %w", rec.ID, err)
	}
	rec.InputFile = file.ID
	if err := update(); err != nil {
		return err
	}
	bt, err := b.api.Create(ctx, wire.BatchCreate{InputFileID: file.ID, Endpoint: rec.Endpoint, CompletionWindow: wire.CompletionWindow,
		Metadata: map[string]string{MetaBatch: rec.ID, "backfill_job": b.opts.Job}})
	if err != nil {
		return fmt.Errorf("creating batch %s: %w", rec.ID, err)
	}
	rec.ProviderID, rec.State = bt.ID, bt.Status
	if rec.State == "" {
		rec.State = wire.BatchValidating
	}
	if rec.State == wire.BatchFailed { // refused at once (its validation)
		rec.Reason = b.reasonOf(bt)
	}
	if err := update(); err != nil {
		return err
	}
	os.Remove(s.path)
	b.track(*rec, true)
	b.mu.Lock()
	b.usage.Batches++
	b.usage.Requests += rec.Requests
	b.usage.EstimatedUSD += rec.EstCostUSD
	b.mu.Unlock()
	for k, n := range s.stages {
		b.kind.Count(k.stage, k.task, func(u *pacing.StageUsage) { u.Calls += int64(n) })
	}
	b.opts.Log.Info("batch submitted", "kind", rec.Kind, "batch", rec.ID, "provider_id", rec.ProviderID, "requests", rec.Requests,
		"bytes", rec.Bytes, "estimated_usd", fmt.Sprintf("%.4f", rec.EstCostUSD))
	return nil
}
