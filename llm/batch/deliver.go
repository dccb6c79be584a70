package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// settleChunk is how many request rows one store transaction settles.
const settleChunk = 256

// delivery is the work of delivering one batch.
type delivery struct {
	b       *Batcher
	rec     *Record
	seen    map[string]bool
	rows    []Request
	entries []cache.Keyed
	usage   Usage
	invalid int
}

// deliver reads an ended batch's output and error files, settles every request row still
// pending (a valid answer into the cache, an invalid one, an error line or an expiry into its
// row), marks the rest unfinished and records the batch as delivered. A file the provider no
// longer serves (gone twice) makes the batch Lost: the rows it held stay unsettled and are
// marked ReqLost. It can run again after a crash: rows already settled are skipped. t.mu is
// held.
func (b *Batcher) deliver(ctx context.Context, t *tracked) error {
	d := &delivery{b: b, rec: &t.rec, seen: map[string]bool{}}
	lost := ""
	for _, file := range []string{t.rec.OutputFile, t.rec.ErrorFile} {
		if file == "" {
			continue
		}
		err := b.readFile(ctx, file, func(line []byte) error { return d.line(ctx, line) })
		if gone(err) {
			lost = fmt.Sprintf("its file %s is gone at the provider: %s", file, b.api.p.Redact(printable(err.Error())))
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the results of batch %s: %w", t.rec.ID, err)
		}
		if err := d.flush(ctx); err != nil {
			return err
		}
	}
	return b.end(ctx, t, d, lost)
}

// end records a batch that ended (delivered) or that the provider lost (lost says why): the
// rows still pending are marked unfinished, ReqLost for a lost batch, the usage of what was
// delivered is counted, and a batch this run submitted has its budget booking corrected to
// what its answers cost. t.mu is held.
func (b *Batcher) end(ctx context.Context, t *tracked, d *delivery, lost string) error {
	rec := t.rec
	rec.State, rec.Ended, rec.UpdatedAt = Delivered, rec.State, time.Now().UTC()
	if lost != "" {
		rec.State, rec.Reason = Lost, lost
		d.usage.Lost++
	}
	rec.Answers, rec.Invalid, rec.Errors, rec.Unfinished = d.usage.Answers, d.invalid, d.usage.Errors, d.usage.Unfinished
	unfinished, err := b.store.FinishBatch(context.WithoutCancel(ctx), rec)
	if err != nil {
		return fmt.Errorf("recording batch %s: %w", rec.ID, err)
	}
	rec.Unfinished += unfinished
	d.usage.Unfinished = rec.Unfinished
	t.rec = rec
	switch {
	case rec.State == Lost:
		d.usage.Fail(Failure{Batch: rec.ID, ProviderID: rec.ProviderID, State: Lost, Reason: rec.Reason})
	case rec.Ended == wire.BatchFailed:
		d.usage.Fail(Failure{Batch: rec.ID, ProviderID: rec.ProviderID, State: rec.Ended, Reason: rec.Reason})
	}
	if t.mine {
		b.opts.Budget.Charge(d.usage.CostUSD - rec.EstCostUSD)
	}
	b.mu.Lock()
	b.usage.Sum(d.usage)
	b.mu.Unlock()
	if rec.State == Lost {
		b.opts.Log.Warn("batch lost by the provider: its unanswered requests are submitted again", "kind", rec.Kind, "batch", rec.ID,
			"provider_id", rec.ProviderID, "last_state", rec.Ended, "answers", rec.Answers, "lost_requests", unfinished, "reason", rec.Reason)
		return nil
	}
	b.opts.Log.Info("batch delivered", "kind", rec.Kind, "batch", rec.ID, "provider_id", rec.ProviderID, "ended", rec.Ended,
		"answers", rec.Answers, "invalid", rec.Invalid, "errors", rec.Errors, "unfinished", rec.Unfinished,
		"invalid_lines", d.usage.InvalidLines, "cost_usd", fmt.Sprintf("%.4f", d.usage.CostUSD))
	return nil
}

// line settles one line of an output or error file.
func (d *delivery) line(ctx context.Context, line []byte) error {
	var ol wire.BatchOutputLine
	if json.Unmarshal(line, &ol) != nil || ol.CustomID == "" {
		d.usage.InvalidLines++ // its request stays pending, ends unfinished and is asked again
		return nil
	}
	if d.seen[ol.CustomID] {
		return nil
	}
	d.seen[ol.CustomID] = true
	row, ok, err := d.b.store.BatchRequestIn(ctx, d.rec.ID, ol.CustomID)
	if err != nil {
		return fmt.Errorf("reading batch request: %w", err)
	}
	if ok && row.Status == ReqForgotten {
		d.discard(ol)
		return nil
	}
	if !ok || row.Status != ReqPending { // settled by an earlier delivery
		return nil
	}
	switch {
	case ol.Response != nil && ol.Response.StatusCode == 200:
		s := d.b.kind.Settle(row, ol.Response.Body)
		cost := d.b.opts.Price.Costs(s.Usage)
		d.usage.Answers++
		d.usage.CostUSD += cost.Total()
		d.b.kind.Count(row.Stage, row.Task, func(u *pacing.StageUsage) {
			u.Add(s.Usage, cost)
			if !s.Valid {
				u.InvalidAnswers++
				if s.Finish == wire.FinishLength {
					u.Truncated++
				}
			}
		})
		if s.Valid {
			row.Status = ReqValid
			d.entries = append(d.entries, s.Entries...)
		} else {
			d.invalid++
			row.Status, row.Detail, row.Raw, row.Finish = ReqInvalid, s.Detail, s.Raw, s.Finish
		}
	case ol.Error != nil && (ol.Error.Code == wire.LineExpired || ol.Error.Code == wire.LineCancelled):
		d.usage.Unfinished++
		row.Status, row.Detail = ReqUnfinished, ol.Error.Code+": "+ol.Error.Message
	default:
		d.usage.Errors++
		row.Status = ReqFailed
		switch {
		case ol.Response != nil:
			msg, code := transport.ErrorDetails(ol.Response.Body)
			row.Code, row.Detail = ol.Response.StatusCode, d.b.api.p.Redact(code+": "+msg)
		case ol.Error != nil:
			row.Detail = d.b.api.p.Redact(ol.Error.Code + ": " + ol.Error.Message)
		default:
			row.Detail = "an error line without a response or an error"
		}
	}
	d.rows = append(d.rows, row)
	if len(d.rows) >= settleChunk {
		return d.flush(ctx)
	}
	return nil
}

// discard counts the answer of a request a forgetting marked ReqForgotten: it was paid for, so
// its usage and cost count; its text goes nowhere.
func (d *delivery) discard(ol wire.BatchOutputLine) {
	if ol.Response == nil || ol.Response.StatusCode != 200 {
		return
	}
	s := d.b.kind.Settle(Request{Status: ReqForgotten}, ol.Response.Body)
	d.usage.Discarded++
	d.usage.CostUSD += d.b.opts.Price.Cost(s.Usage)
}

// flush writes the settled rows and cache entries gathered so far in one transaction. A paid
// answer is stored even when the run is being cancelled.
func (d *delivery) flush(ctx context.Context) error {
	if len(d.rows) == 0 {
		return nil
	}
	if err := d.b.store.SettleBatchRequests(context.WithoutCancel(ctx), d.rows, d.entries); err != nil {
		return fmt.Errorf("settling batch %s: %w", d.rec.ID, err)
	}
	d.rows, d.entries = d.rows[:0], d.entries[:0]
	return nil
}
