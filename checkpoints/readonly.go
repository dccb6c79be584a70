package checkpoints

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// OpenReadOnly opens an existing store for reading only: status, export, query and plan use it.
// It takes no lock and writes nothing, so it works while a run holds the store and on
// read-only media. It opens the database in SQLite's read-only mode, which also reads what a
// live run has in its write-ahead log; where that mode cannot open the file (a read-only
// directory without the store's -shm file) it opens it as immutable, which is exact because
// the store then has no write-ahead log to read (it is an error when it has one). Write and
// Checkpoint fail on a read-only store.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening checkpoint store %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, &StoreError{Path: path, Problem: "is a directory, not a file", Err: errors.New("opening store")}
	}
	s, err := openReadOnly(ctx, path, false)
	if err != nil && cannotOpen(err) {
		if wal, werr := os.Stat(path + "-wal"); werr == nil && wal.Size() > 0 {
			return nil, &StoreError{Path: path, Problem: "has a write-ahead log (" + path + "-wal) that cannot be read where it is " +
				"(a read-only directory without its -shm file): copy the store with its -wal file to writable storage", Err: err}
		}
		s, err = openReadOnly(ctx, path, true)
	}
	if err != nil {
		return nil, describe(path, err)
	}
	return s, nil
}

// ErrSchemaVersion is the error of OpenReadOnly on a store of another schema version than this
// build's: only Open migrates a store.
var ErrSchemaVersion = errors.New("the store has another schema version")

// openReadOnly opens the store in SQLite's read-only mode, or as an immutable file.
func openReadOnly(ctx context.Context, path string, immutable bool) (*Store, error) {
	q := url.Values{}
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", "busy_timeout(30000)")
	r, err := openPool(path, q, 4)
	if err != nil {
		return nil, err
	}
	var v string
	err = r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		err = errors.New("no schema version: not a checkpoint store")
	case err == nil && v != schemaVersion:
		err = fmt.Errorf("%w: schema version %s, this build reads %s: run `backfill run` once to upgrade the store (only a run writes it)",
			ErrSchemaVersion, v, schemaVersion)
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("opening store read-only: %w", err)
	}
	return &Store{path: path, r: r, readOnly: true}, nil
}

// cannotOpen reports whether SQLite could not open the file in read-only mode (as on
// read-only media without the -shm file).
func cannotOpen(err error) bool {
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code() & 0xff
	return c == sqliteCantOpen || c == sqliteReadOnly
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

func (s *Store) errReadOnly() error {
	return &StoreError{Path: s.path, Problem: "was opened read-only", Err: errors.New("writing")}
}
