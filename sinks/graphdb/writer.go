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

// pending holds the rows waiting for one statement in one graph.
type pending struct {
	graph string
	st    stmt
	cypher.Pending
}

// batchKey names a batch: rows of one statement for one graph.
type batchKey struct{ graph, text string }

// writer batches rows per statement and graph and writes each batch in its own transaction,
// retried on transient errors. A batch is written once it is full under the batching rule
// (cypher.Limits: Options.BatchSize rows or Options.BatchBytes bytes as sent, executor.encode).
// One batch at a time is in flight, sent from a goroutine while the next one fills; each write
// first waits for the one before, so batches commit in the order they are written. Relationship
// batches are written only after every pending node batch, so the endpoints of each relationship
// exist when it is written.
type writer struct {
	l        *Loader
	pending  map[batchKey]*pending // rows waiting
	nodes    []*pending            // node batches in order of first use
	edges    []*pending            // relationship batches in order of first use
	inflight chan error            // the batch in flight reports here; nil when none
	claims   []Owned               // elements queued that the record does not hold yet
}

// claim notes an element about to be written that the ownership record lacks; the claims are
// recorded (Owner.Claim) before the next batch is sent, so a load killed after writing an
// element leaves it owned.
func (w *writer) claim(o Owned) { w.claims = append(w.claims, o) }

func newWriter(l *Loader) *writer {
	return &writer{l: l, pending: map[batchKey]*pending{}}
}

// add queues a row for st in graph and writes the batch once it is full; a full relationship
// batch is written after all pending node rows.
func (w *writer) add(ctx context.Context, graph string, st stmt, row cypher.Row) error {
	enc, size, err := w.l.ex.encode(row)
	if err != nil {
		return err
	}
	k := batchKey{graph, st.text}
	p := w.pending[k]
	if p == nil {
		p = &pending{graph: graph, st: st}
		w.pending[k] = p
		if st.edge {
			w.edges = append(w.edges, p)
		} else {
			w.nodes = append(w.nodes, p)
		}
	}
	if !p.Add(w.l.limits(), enc, size) {
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
	if len(p.Rows) == 0 {
		return nil
	}
	if err := w.wait(); err != nil {
		return err
	}
	if len(w.claims) > 0 {
		if err := w.l.o.Owner.Claim(ctx, w.claims); err != nil {
			return fmt.Errorf("recording elements about to be written: %w", err)
		}
		w.claims = nil
	}
	rows, bytes := p.Take()
	w.inflight = make(chan error, 1)
	go func(done chan<- error) { done <- w.send(ctx, p.graph, p.st, rows, bytes) }(w.inflight)
	return nil
}

// send writes rows with st as one transaction in graph. A CREATE batch that fails is tried again
// as MERGE (st.retry): its first try may have committed (an unknown commit outcome) or, in
// Memgraph's analytical mode, written part of its rows; one that a uniqueness constraint
// rejected (another load wrote the group meanwhile) is tried again as MERGE at once.
func (w *writer) send(ctx context.Context, graph string, st stmt, rows []any, bytes int) error {
	params := map[string]any{"rows": rows}
	text := st.text
	start := time.Now()
	tries, end := 0, func(int, error) {}
	if o := w.l.o.Observer; o != nil {
		end = o.Batch(ctx, Batch{Dialect: string(w.l.o.Dialect), Graph: graph, Rows: len(rows), Bytes: bytes, Edges: st.edge})
	}
	err := w.l.retrier().do(ctx, func(ctx context.Context) error {
		tries++
		err := w.l.ex.exec(ctx, graph, cypher.Statement{Cypher: text}, params)
		if err != nil && st.retry != "" && text != st.retry {
			text = st.retry
			if cypher.UniqueViolation(w.l.o.Dialect, err) {
				// Another load created some of these rows first: MERGE them now.
				w.l.o.Log.Warn("a CREATE met rows another load wrote; writing them with MERGE", "err", err)
				err = w.l.ex.exec(ctx, graph, cypher.Statement{Cypher: text}, params)
			}
		}
		return err
	})
	end(max(tries-1, 0), err)
	if err != nil {
		return fmt.Errorf("writing a batch of %d rows (%.60s…): %w", len(rows), st.text[len(cypher.RowsPrefix):], err)
	}
	w.l.o.Log.Debug("batch written", "graph", graph, "rows", len(rows), "bytes", bytes, "seconds", time.Since(start).Seconds())
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
