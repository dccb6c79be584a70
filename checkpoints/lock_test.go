package checkpoints

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// TestWriteLock: a second writer fails at once naming the holder; readers open beside the
// writer and see its commits; closing releases the lock.
func TestWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, path)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() || le.Host == "" || !strings.Contains(err.Error(), path) {
		t.Fatalf("second Open = %v, want a LockedError naming this process and the store", err)
	}
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep("a", "g", ref, 1)}, ref); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly beside a writer: %v", err)
	}
	if n, err := r.CountEpisodes(ctx); err != nil || n != 1 {
		t.Errorf("reader sees %d episodes (%v), want 1", n, err)
	}
	if err := r.Write(ctx, func(*Tx) error { return nil }); err == nil {
		t.Error("a read-only store wrote")
	}
	r.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
}

// TestPathsAreFileNames: names with URI syntax in them each name their own file.
func TestPathsAreFileNames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	names := []string{"a.db", "a.db#b", "a.db?mode=memory", "a%2Edb", "a b.db", "ä+&=.db", "a.db#"}
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, n := range names {
		s, err := Open(ctx, filepath.Join(dir, n))
		if err != nil {
			t.Fatalf("Open(%q): %v", n, err)
		}
		if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep(n, "g", ref, int64(i))}, ref); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("no file %q: %v", n, err)
		}
		s, err := OpenReadOnly(ctx, filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		eps, err := s.GroupEpisodes(ctx, "g")
		s.Close()
		if err != nil || len(eps) != 1 || eps[0].UUID != n {
			t.Errorf("store %q holds %+v (%v), want only its own episode", n, eps, err)
		}
	}
}

// TestStoreErrorsNameTheProblem: a file that is not a database is reported as such.
func TestStoreErrorsNameTheProblem(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		_, err := open(ctx, path)
		var se *StoreError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "is not a SQLite database") {
			t.Errorf("%s = %v, want a StoreError naming the file as not a database", name, err)
		}
	}
}
