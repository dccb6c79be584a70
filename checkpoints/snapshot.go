package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
)

// Hooks let another package keep the store's file elsewhere as it changes (package replica
// keeps it in object storage). Every field may be nil.
type Hooks struct {
	// Checkpointed runs after Checkpoint: the runner calls Checkpoint between stages.
	Checkpointed func(ctx context.Context)
	// Barrier runs after a write that must outlive this machine before its caller goes on: a
	// provider batch recorded as submitting with its input file uploaded, just before the
	// provider is asked to create (and bill) it. Its error is the write's error.
	Barrier func(ctx context.Context) error
	// Closing runs first in Close, with the database still open; Closed runs last, after the
	// database closed and the write lock was released. Their errors are Close's.
	Closing func() error
	Closed  func() error
}

// SetHooks attaches hooks to the store (once, right after it opened).
func (s *Store) SetHooks(h Hooks) { s.hooks = h }

// snapshotter is the connection snapshots are taken on: one connection of its own, in
// read-only mode, so that PRAGMA data_version on it changes exactly when another connection
// (the store's writer) committed.
type snapshotter struct {
	mu sync.Mutex
	db *sql.DB
}

// conn opens the snapshot connection on first use.
func (s *Store) snapConn() (*sql.DB, error) {
	s.snap.mu.Lock()
	defer s.snap.mu.Unlock()
	if s.snap.db == nil {
		q := url.Values{}
		q.Set("mode", "ro")
		q.Add("_pragma", "busy_timeout(30000)")
		db, err := openPool(s.path, q, 1)
		if err != nil {
			return nil, err
		}
		db.SetMaxIdleConns(1)
		db.SetConnMaxLifetime(0)
		db.SetConnMaxIdleTime(0)
		s.snap.db = db
	}
	return s.snap.db, nil
}

// Version is a number that changes whenever the store's writer commits (SQLite's
// data_version, read on the snapshot connection): a copy taken after Version returned v holds
// every commit made before, and an unchanged Version means nothing was committed since.
func (s *Store) Version(ctx context.Context) (int64, error) {
	db, err := s.snapConn()
	if err != nil {
		return 0, describe(s.path, err)
	}
	var v int64
	if err := db.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
		return 0, describe(s.path, fmt.Errorf("reading the data version: %w", err))
	}
	return v, nil
}

// Snapshot writes a consistent copy of the store to dst, which must not exist or be empty:
// SQLite's VACUUM INTO, in one read transaction beside the running writer (which goes on
// writing). The copy holds every commit made before Snapshot was called, is compact (no free
// pages) and is a plain rollback-journal database (no -wal file to carry): Open turns it back
// into write-ahead-log mode.
func (s *Store) Snapshot(ctx context.Context, dst string) error {
	db, err := s.snapConn()
	if err != nil {
		return describe(s.path, err)
	}
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return describe(s.path, fmt.Errorf("taking a snapshot into %s: %w", dst, err))
	}
	return nil
}

// SetMeta records a key/value fact about the store in its meta table (a key other than
// schema_version).
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if key == "schema_version" {
		return errors.New("setting meta: schema_version is the store's own")
	}
	return s.Write(ctx, func(tx *Tx) error {
		if _, err := tx.tx.ExecContext(ctx, `INSERT OR REPLACE INTO meta(key,value) VALUES(?,?)`, key, value); err != nil {
			return fmt.Errorf("setting meta %s: %w", key, err)
		}
		return nil
	})
}

// Meta reads a key of the meta table ("" and false when absent).
func (s *Store) Meta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.reader().QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, describe(s.path, fmt.Errorf("reading meta %s: %w", key, err))
	}
	return v, true, nil
}

// barrier runs the Barrier hook, if any.
func (s *Store) barrier(ctx context.Context) error {
	if s.hooks.Barrier == nil {
		return nil
	}
	return s.hooks.Barrier(ctx)
}

// Replace puts the database file from (a snapshot, on the same file system) in place of the
// store at path, which no process may have open. SQLite's -wal, -shm and -journal files of the
// old store go first (a log of the old store must never be applied to the new file), then from
// is renamed to path.
func Replace(path, from string) error {
	for _, suffix := range sidecars {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("replacing checkpoint store %s: %w", path, err)
		}
	}
	if err := os.Rename(from, path); err != nil {
		return fmt.Errorf("replacing checkpoint store %s: %w", path, err)
	}
	return nil
}
