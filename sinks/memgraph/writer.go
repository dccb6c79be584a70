package memgraph

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// writer batches rows per statement and writes each batch in its own transaction, retried on
// transient errors. Relationship batches are written only after every pending node batch, so
// the endpoints of each relationship exist when it is MERGEd.
type writer struct {
	l         *Loader
	pending   map[string][]any // statement → rows waiting
	nodeStmts []string         // node statements in order of first use
	edgeStmts []string         // relationship statements in order of first use
	isEdge    map[string]bool
}

func newWriter(l *Loader) *writer {
	return &writer{l: l, pending: map[string][]any{}, isEdge: map[string]bool{}}
}

// node queues a node row and writes its batch once full.
func (w *writer) node(ctx context.Context, stmt string, row cypher.Row) error {
	if _, ok := w.pending[stmt]; !ok {
		w.nodeStmts = append(w.nodeStmts, stmt)
	}
	w.pending[stmt] = append(w.pending[stmt], row)
	if len(w.pending[stmt]) >= w.l.o.BatchSize {
		return w.write(ctx, stmt)
	}
	return nil
}

// edge queues a relationship row; a full batch is written after all pending node rows.
func (w *writer) edge(ctx context.Context, stmt string, row cypher.Row) error {
	if _, ok := w.pending[stmt]; !ok {
		w.edgeStmts = append(w.edgeStmts, stmt)
		w.isEdge[stmt] = true
	}
	w.pending[stmt] = append(w.pending[stmt], row)
	if len(w.pending[stmt]) < w.l.o.BatchSize {
		return nil
	}
	if err := w.flushNodes(ctx); err != nil {
		return err
	}
	return w.write(ctx, stmt)
}

// flush writes every pending row: nodes first, then relationships.
func (w *writer) flush(ctx context.Context) error {
	if err := w.flushNodes(ctx); err != nil {
		return err
	}
	for _, s := range w.edgeStmts {
		if err := w.write(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) flushNodes(ctx context.Context) error {
	for _, s := range w.nodeStmts {
		if err := w.write(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// write sends the pending rows of stmt as one transaction.
func (w *writer) write(ctx context.Context, stmt string) error {
	rows := w.pending[stmt]
	if len(rows) == 0 {
		return nil
	}
	params := map[string]any{"rows": rows}
	err := w.l.retrier().do(ctx, func(ctx context.Context) error {
		return w.l.ex.exec(ctx, cypher.Statement{Cypher: stmt}, params)
	})
	if err != nil {
		return fmt.Errorf("writing a batch of %d rows (%.60s…): %w", len(rows), stmt[len(cypher.RowsPrefix):], err)
	}
	w.pending[stmt] = rows[:0:0]
	if w.isEdge[stmt] {
		w.l.res.Edges += len(rows)
	} else {
		w.l.res.Nodes += len(rows)
	}
	w.l.res.Batches++
	w.l.o.Progress.Add(len(rows))
	return nil
}
