package checkpoints

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the checkpoint store of one job (or one shard of it). It is safe for concurrent use:
// writes go through a single connection, reads through a small pool (WAL lets them run beside a
// writer).
type Store struct {
	path string
	w    *sql.DB // the only writer
	r    *sql.DB // readers
}

// Open opens or creates the store at path and applies the schema.
func Open(ctx context.Context, path string) (*Store, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating checkpoint directory: %w", err)
		}
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Add("_pragma", "journal_size_limit(67108864)") // truncate the WAL to 64 MiB after a checkpoint
	q.Set("_txlock", "immediate")
	dsn := "file:" + path + "?" + q.Encode()
	w, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening store %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	s := &Store{path: path, w: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("opening store %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s.r = r
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrating store: %w", err)
	}
	defer tx.Rollback()
	var v string
	if _, err := tx.ExecContext(ctx, schema[0]); err != nil { // meta
		return fmt.Errorf("migrating store: %w", err)
	}
	err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	switch {
	case err == sql.ErrNoRows: // a new store: the current schema
		v = schemaVersion
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta(key,value) VALUES('schema_version',?)`, schemaVersion); err != nil {
			return fmt.Errorf("migrating store: %w", err)
		}
	case err != nil:
		return fmt.Errorf("migrating store: %w", err)
	}
	for v != schemaVersion {
		steps, ok := migrations[v]
		if !ok {
			return fmt.Errorf("migrating store: schema version %s, this build reads %s", v, schemaVersion)
		}
		for _, stmt := range steps {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrating store from schema version %s: %w", v, err)
			}
		}
		n, _ := strconv.Atoi(v)
		v = strconv.Itoa(n + 1)
		if _, err := tx.ExecContext(ctx, `UPDATE meta SET value=? WHERE key='schema_version'`, v); err != nil {
			return fmt.Errorf("migrating store: %w", err)
		}
	}
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("migrating store: %w", err)
		}
	}
	return tx.Commit()
}

// Checkpoint copies the write-ahead log into the database and truncates it. The runner calls it
// between stages, when no reader holds an old snapshot, so the log cannot grow with the input.
func (s *Store) Checkpoint(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("checkpointing the write-ahead log: %w", err)
	}
	return nil
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.path }

// Close closes the store.
func (s *Store) Close() error {
	var err error
	if s.r != nil {
		err = s.r.Close()
	}
	if e := s.w.Close(); e != nil && err == nil {
		err = e
	}
	return err
}

// Tx is one write transaction of the store; stages write a unit's outputs through it.
type Tx struct{ tx *sql.Tx }

// Write runs fn in one write transaction.
func (s *Store) Write(ctx context.Context, fn func(*Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("beginning transaction: %w", err)
	}
	defer tx.Rollback()
	if err := fn(&Tx{tx: tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing transaction: %w", err)
	}
	return nil
}
