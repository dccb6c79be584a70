package checkpoints

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// TestCorruptStoreNamed: damage in the middle of the file, met by a query long after the store
// opened, is a StoreError that names the file and says what to do, through reads of either
// kind of store and through a write.
func TestCorruptStoreNamed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	var eps []graph.Episode
	for i := range 3000 {
		e := ep(fmt.Sprintf("e%04d", i), fmt.Sprintf("g%d", i%7), ref.Add(time.Duration(i)*time.Minute), int64(i))
		e.Content = strings.Repeat("words of an episode ", 10)
		eps = append(eps, e)
	}
	if _, err := s.UpsertEpisodes(ctx, eps, ref); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	damage(t, path)

	check := func(what string, err error) {
		t.Helper()
		var se *StoreError
		if !errors.As(err, &se) || se.Path != path {
			t.Fatalf("%s = %v, want a StoreError naming %s", what, err, path)
		}
		for _, want := range []string{path, "is corrupt", "PRAGMA integrity_check", "snapshot", "export"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: the error does not say %q: %v", what, want, err)
			}
		}
	}
	r, err := OpenReadOnly(ctx, path)
	if err != nil {
		check("OpenReadOnly", err)
	} else {
		_, err = r.Count(ctx)
		check("Count on a read-only store", err)
		r.Close()
	}
	w, err := Open(ctx, path)
	if err != nil {
		check("Open", err)
		return
	}
	defer w.Close()
	_, err = w.UpsertEpisodes(ctx, eps[:10], ref)
	check("UpsertEpisodes", err)
}

// damage overwrites the start of every page from a tenth to nine tenths of the file.
func damage(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	pages := st.Size() / page
	for p := pages / 10; p < pages*9/10; p++ {
		if _, err := f.WriteAt([]byte(strings.Repeat("\xff", 16)), p*page); err != nil {
			t.Fatal(err)
		}
	}
}
