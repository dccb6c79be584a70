package graphdb

import (
	"context"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// stmt is one batch statement.
type stmt struct {
	text  string
	retry string // a CREATE statement's MERGE form: a batch tried again runs it instead
	edge  bool   // writes relationships
}

// pending holds the rows waiting for one statement.
type pending struct {
	st    stmt
	rows  []any
	bytes int
}

// writer batches rows per statement and writes each batch in its own transaction, retried on
// transient errors. A batch is written once it holds Options.BatchSize rows or
// Options.BatchBytes bytes (rowBytes). One batch at a time is in flight, sent from a goroutine
// while the next one fills; each write first waits for the one before, so batches commit in the
// order they are written. Relationship batches are written only after every pending node batch,
// so the endpoints of each relationship exist when it is written.
type writer struct {
	l        *Loader
	pending  map[string]*pending // statement text → rows waiting
	nodes    []*pending          // node statements in order of first use
	edges    []*pending          // relationship statements in order of first use
	inflight chan error          // the batch in flight reports here; nil when none
}

func newWriter(l *Loader) *writer {
	return &writer{l: l, pending: map[string]*pending{}}
}

// add queues a row for st and writes the batch once it is full; a full relationship batch is
// written after all pending node rows.
func (w *writer) add(ctx context.Context, st stmt, row map[string]any) error {
	p := w.pending[st.text]
	if p == nil {
		p = &pending{st: st}
		w.pending[st.text] = p
		if st.edge {
			w.edges = append(w.edges, p)
		} else {
			w.nodes = append(w.nodes, p)
		}
	}
	p.rows = append(p.rows, row)
	p.bytes += rowBytes(row)
	if len(p.rows) < w.l.o.BatchSize && p.bytes < w.l.o.BatchBytes {
		return nil
	}
	if st.edge {
		if err := w.flushAll(ctx, w.nodes); err != nil {
			return err
		}
	}
	return w.write(ctx, p)
}

// flush writes every pending row, nodes first, then relationships, and waits until all are
// committed.
func (w *writer) flush(ctx context.Context) error {
	if err := w.flushAll(ctx, w.nodes); err != nil {
		return err
	}
	if err := w.flushAll(ctx, w.edges); err != nil {
		return err
	}
	return w.wait()
}

func (w *writer) flushAll(ctx context.Context, ps []*pending) error {
	for _, p := range ps {
		if err := w.write(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// wait waits for the batch in flight and returns its error.
func (w *writer) wait() error {
	if w.inflight == nil {
		return nil
	}
	err := <-w.inflight
	w.inflight = nil
	return err
}

// write waits for the batch in flight, then sends the pending rows of p from a goroutine.
func (w *writer) write(ctx context.Context, p *pending) error {
	if len(p.rows) == 0 {
		return nil
	}
	if err := w.wait(); err != nil {
		return err
	}
	st, rows, bytes := p.st, p.rows, p.bytes
	p.rows, p.bytes = nil, 0
	w.inflight = make(chan error, 1)
	go func(done chan<- error) { done <- w.send(ctx, st, rows, bytes) }(w.inflight)
	return nil
}

// send writes rows with st as one transaction. A CREATE batch that fails is tried again as MERGE
// (st.retry): its first try may have committed (an unknown commit outcome) or, in Memgraph's
// analytical mode, written part of its rows.
func (w *writer) send(ctx context.Context, st stmt, rows []any, bytes int) error {
	params := map[string]any{"rows": rows}
	text := st.text
	start := time.Now()
	err := w.l.retrier().do(ctx, func(ctx context.Context) error {
		err := w.l.ex.exec(ctx, cypher.Statement{Cypher: text}, params)
		if err != nil && st.retry != "" {
			text = st.retry
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing a batch of %d rows (%.60s…): %w", len(rows), st.text[len(cypher.RowsPrefix):], err)
	}
	w.l.o.Log.Debug("batch written", "rows", len(rows), "bytes", bytes, "seconds", time.Since(start).Seconds())
	w.l.mu.Lock()
	if st.edge {
		w.l.res.Edges += len(rows)
	} else {
		w.l.res.Nodes += len(rows)
	}
	w.l.res.Batches++
	w.l.mu.Unlock()
	w.l.o.Progress.Add(len(rows))
	return nil
}
