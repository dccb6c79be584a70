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

// TestPlantedNames: a symbolic link, a hard link or a FIFO planted at the lock file's name or
// at one of SQLite's files beside the store makes Open fail naming it, and the file it points
// at is left as it was.
func TestPlantedNames(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		suffix string
		plant  func(name, victim string) error
		says   string
	}{
		{"symlink at the lock", ".lock", os.Symlink, "is a symbolic link"},
		{"hard link at the lock", ".lock", os.Link, "hard links"},
		{"symlink at the WAL", "-wal", os.Symlink, "is a symbolic link"},
		{"symlink at the shared memory", "-shm", os.Symlink, "is a symbolic link"},
		{"hard link at the journal", "-journal", os.Link, "hard links"},
		{"FIFO at the lock", ".lock", func(name, _ string) error { return mkfifo(name) }, "named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim.txt")
			const content = "the user's own file\n"
			if err := os.WriteFile(victim, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "s.db")
			if err := tc.plant(path+tc.suffix, victim); err != nil {
				t.Skipf("cannot plant: %v", err)
			}
			s, err := Open(ctx, path)
			if err == nil {
				s.Close()
				t.Fatalf("Open succeeded with a %s", tc.name)
			}
			var se *StoreError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), path+tc.suffix) || !strings.Contains(err.Error(), tc.says) ||
				!strings.Contains(err.Error(), "remove it") {
				t.Errorf("Open = %v, want a StoreError naming %s (%s) and what to do", err, path+tc.suffix, tc.says)
			}
			if b, _ := os.ReadFile(victim); string(b) != content {
				t.Errorf("the victim file was changed: %q", b)
			}
		})
	}
}
