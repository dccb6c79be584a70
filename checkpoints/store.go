package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Store is the checkpoint store of one job (or one shard of it). It is safe for concurrent use:
// writes go through a single connection, reads through a small pool (WAL lets them run beside a
// writer). A store opened with Open holds the store's write lock until Close; one opened with
// OpenReadOnly takes no lock and cannot write.
type Store struct {
	path     string
	w        *sql.DB // the only writer (nil when read-only)
	r        *sql.DB // readers
	lock     *writeLock
	readOnly bool
	snap     snapshotter // the connection snapshots are taken on (Snapshot, Version)
	hooks    Hooks
	closed   bool
	held     heldTx // the transaction Atomically holds open, if any
}

// Open opens or creates the store at path for writing and applies the schema. A store on a
// network file system is refused (checkLocalFS): SQLite's write-ahead log is not safe there.
// Open then takes the store's write lock (an OS file lock on path+".lock", held until Close and
// released by the kernel if the process dies): while another process has the store open for
// writing, Open fails at once with a *LockedError naming that process. Errors about the file
// itself (not a database, read-only, disk full) are *StoreError.
func Open(ctx context.Context, path string) (*Store, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &StoreError{Path: path, Problem: "is a directory, not a file", Err: errors.New("opening store")}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, describe(path, fmt.Errorf("creating checkpoint directory: %w", err))
		}
	}
	if err := checkLocalFS(path); err != nil {
		return nil, err
	}
	lock, err := acquireLock(path)
	if err != nil {
		return nil, err
	}
	if err := checkSidecars(path); err != nil {
		lock.release()
		return nil, &StoreError{Path: path, Problem: "cannot be opened", Err: err}
	}
	s, err := openLocked(ctx, path)
	if err != nil {
		lock.release()
		return nil, describe(path, err)
	}
	s.lock = lock
	return s, nil
}

// openLocked opens the store for writing once the lock is held.
func openLocked(ctx context.Context, path string) (*Store, error) {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "busy_timeout(30000)")
	q.Add("_pragma", "foreign_keys(OFF)")
	q.Add("_pragma", "journal_size_limit(67108864)") // truncate the WAL to 64 MiB after a checkpoint
	q.Set("_txlock", "immediate")
	w, err := openPool(path, q, 1)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, w: w}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if s.r, err = openPool(path, q, 4); err != nil {
		w.Close()
		return nil, err
	}
	return s, nil
}

// openPool opens a pool of at most conns connections to the file at path with the URI query q.
func openPool(path string, q url.Values, conns int) (*sql.DB, error) {
	dsn, err := sqliteURI(path, q)
	if err != nil {
		return nil, err
	}
	db := openNamed(dsn, path)
	db.SetMaxOpenConns(conns)
	return db, nil
}

// sqliteURI is the SQLite URI of the file at path with the query q: the absolute path,
// percent-encoded, so that any legal file name ('?', '#', '%', spaces, any Unicode) names
// exactly that file.
func sqliteURI(path string, q url.Values) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	if !strings.HasPrefix(u.Path, "/") { // a Windows drive path: file:///C:/…
		u.Path = "/" + u.Path
	}
	return u.String(), nil
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
	case errors.Is(err, sql.ErrNoRows): // a new store: the current schema
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

// Checkpoint copies the write-ahead log into the database and truncates it, then runs the
// Checkpointed hook. The runner calls it between stages, when no reader holds an old snapshot,
// so the log cannot grow with the input.
func (s *Store) Checkpoint(ctx context.Context) error {
	if s.readOnly {
		return s.errReadOnly()
	}
	if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return describe(s.path, fmt.Errorf("checkpointing the write-ahead log: %w", err))
	}
	if s.hooks.Checkpointed != nil {
		s.hooks.Checkpointed(ctx)
	}
	return nil
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.path }

// Close closes the store and releases its write lock, running the Closing and Closed hooks
// around that. Closing a closed store does nothing.
func (s *Store) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.hooks.Closing != nil {
		errs = append(errs, s.hooks.Closing())
	}
	if s.snap.db != nil {
		errs = append(errs, s.snap.db.Close())
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	errs = append(errs, s.lock.release())
	if s.hooks.Closed != nil {
		errs = append(errs, s.hooks.Closed())
	}
	return errors.Join(errs...)
}

// Tx is one write transaction of the store; stages write a unit's outputs through it.
type Tx struct{ tx *sql.Tx }

// Write runs fn in one write transaction.
func (s *Store) Write(ctx context.Context, fn func(*Tx) error) error {
	if s.readOnly {
		return s.errReadOnly()
	}
	if s.held.get() != nil {
		return describe(s.path, s.held.write(ctx, fn))
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return describe(s.path, fmt.Errorf("beginning transaction: %w", err))
	}
	defer tx.Rollback()
	if err := fn(&Tx{tx: tx}); err != nil {
		return describe(s.path, err)
	}
	if err := tx.Commit(); err != nil {
		return describe(s.path, fmt.Errorf("committing transaction: %w", err))
	}
	return nil
}
