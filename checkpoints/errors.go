package checkpoints

import (
	"errors"
	"fmt"
	"syscall"

	"modernc.org/sqlite"
)

// StoreError is a failure of the store's file, saying which file and what is wrong with it
// (not a database, corrupt, read-only, disk full, …).
type StoreError struct {
	Path    string // the store's path
	Problem string // what is wrong, e.g. "is not a SQLite database"
	Err     error
	Remedy  string // what to do about it ("" when Problem says it)
}

func (e *StoreError) Error() string {
	if e.Remedy != "" {
		return fmt.Sprintf("checkpoint store %s %s: %v; %s", e.Path, e.Problem, e.Err, e.Remedy)
	}
	return fmt.Sprintf("checkpoint store %s %s: %v", e.Path, e.Problem, e.Err)
}

func (e *StoreError) Unwrap() error { return e.Err }

// SQLite primary result codes (https://sqlite.org/rescode.html) the store explains.
const (
	sqlitePerm     = 3
	sqliteReadOnly = 8
	sqliteIOErr    = 10
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// describe turns an error of the store's file into a StoreError that names it and says what
// is wrong; errors of other kinds (a stage's own, a cancelled context) pass through unchanged.
func describe(path string, err error) error {
	if err == nil {
		return nil
	}
	var se *StoreError
	if errors.As(err, &se) {
		return err
	}
	if p := problem(err); p != "" {
		se := &StoreError{Path: path, Problem: p, Err: err}
		if p == corrupt {
			se.Remedy = corruptRemedy(path)
		}
		return se
	}
	return err
}

// The Problems of a store whose file is damaged, or is no database at all.
const (
	corrupt      = "is corrupt"
	notADatabase = "is not a SQLite database (is the checkpoint path right?)"
)

// Damaged reports whether err says a store's file is damaged or is not a database: what a
// good copy of the store may replace.
func Damaged(err error) bool {
	var se *StoreError
	return errors.As(err, &se) && (se.Problem == corrupt || se.Problem == notADatabase)
}

// corruptRemedy says what to do about a damaged store.
func corruptRemedy(path string) string {
	return fmt.Sprintf("see what is damaged with `sqlite3 %s 'PRAGMA integrity_check'`; then restore the file from a copy or "+
		"from its last snapshot (an s3:// checkpoint restores the bucket's snapshot when its local copy is deleted), or move it "+
		"aside and run again from the start (its cached LLM answers are asked again); the last `backfill export` still holds "+
		"the graph as it was then", path)
}

// problem says what an error means for the store's file, or "" when it is not about the file.
func problem(err error) string {
	var le *sqlite.Error
	if errors.As(err, &le) {
		switch le.Code() & 0xff {
		case sqliteNotADB:
			return notADatabase
		case sqliteCorrupt:
			return corrupt
		case sqliteReadOnly, sqlitePerm:
			return "is read-only (a read-only file, directory or mount): only status, export, query and plan can use it"
		case sqliteFull:
			return "cannot be written: the disk is full"
		case sqliteCantOpen:
			return "cannot be opened (a missing or unwritable directory, or not a file)"
		case sqliteIOErr:
			return "had an I/O error"
		}
		return ""
	}
	switch {
	case errors.Is(err, syscall.EROFS):
		return "is on a read-only file system: only status, export, query and plan can use it"
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return "is not writable (permission denied): only status, export, query and plan can use it"
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "cannot be written: the disk is full"
	}
	return ""
}
