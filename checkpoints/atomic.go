package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// Atomically runs fn with every write of the store held in one transaction: committed when fn
// returns nil, rolled back when it returns an error (or panics), so the store is either as fn
// left it or as it was before. Inside fn, Write runs each of its transactions as a savepoint
// of the held one, and every read of the store goes through it, so fn sees its own writes;
// readers of other processes see the store as it was until the commit. Ingest runs in it, so
// a run that a guard refuses (limits.max_vanished_ratio, limits.max_error_ratio) or that stops
// part way stages nothing. Only the goroutine that runs fn may use the store meanwhile, and
// Atomically does not nest.
func (s *Store) Atomically(ctx context.Context, fn func(ctx context.Context) error) (err error) {
	if s.readOnly {
		return s.errReadOnly()
	}
	if s.held.get() != nil { // the writer's one connection is taken: BeginTx would wait forever
		return errors.New("checkpoints: Atomically does not nest")
	}
	// The transaction outlives a cancelled ctx: database/sql would roll it back on its own,
	// while fn decides, through its error, whether its writes stay.
	tx, err := s.w.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return describe(s.path, fmt.Errorf("beginning transaction: %w", err))
	}
	if !s.held.set(tx) {
		tx.Rollback()
		return errors.New("checkpoints: Atomically does not nest")
	}
	committed := false
	defer func() {
		s.held.set(nil)
		if !committed {
			tx.Rollback()
		}
	}()
	if err := fn(ctx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, fmt.Errorf("committing transaction: %w", err))
	}
	committed = true
	return nil
}

// querier is what the store's reads need of a connection pool or a transaction.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// reader is where the store reads: the transaction Atomically holds, else the readers' pool.
func (s *Store) reader() querier {
	if tx := s.held.get(); tx != nil {
		return tx
	}
	return s.r
}

// heldTx is the transaction Atomically holds open.
type heldTx struct {
	mu sync.Mutex
	tx *sql.Tx
	wr sync.Mutex // one savepoint at a time
}

// set holds tx (nil: none); it fails when a transaction is held already.
func (h *heldTx) set(tx *sql.Tx) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if tx != nil && h.tx != nil {
		return false
	}
	h.tx = tx
	return true
}

func (h *heldTx) get() *sql.Tx {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tx
}

// write runs fn as a savepoint of the held transaction: its writes are undone when it fails.
func (h *heldTx) write(ctx context.Context, fn func(*Tx) error) error {
	h.wr.Lock()
	defer h.wr.Unlock()
	tx := h.get()
	if _, err := tx.ExecContext(ctx, `SAVEPOINT write`); err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	if err := fn(&Tx{tx: tx}); err != nil {
		if _, rerr := tx.ExecContext(context.WithoutCancel(ctx), `ROLLBACK TO write`); rerr != nil {
			err = errors.Join(err, rerr)
		}
		_, _ = tx.ExecContext(context.WithoutCancel(ctx), `RELEASE write`)
		return err
	}
	if _, err := tx.ExecContext(ctx, `RELEASE write`); err != nil {
		return fmt.Errorf("committing transaction: %w", err)
	}
	return nil
}
