package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
)

// TestFailedRunLeavesNoEmptyStore: a run that fails before it staged anything removes the store
// it created (and the directory it made for it, with the lock and side files); a store that
// existed before the failing run stays, whole.
func TestFailedRunLeavesNoEmptyStore(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "new", "demo.db")
	failing := demoJob(t, "sources.0.format=parquet")
	failing.Sources[0].Path, failing.Checkpoint = bad, store
	if _, err := Run(context.Background(), failing, Options{Clock: testClock}); err == nil {
		t.Fatal("a run of an unreadable parquet file succeeded")
	}
	if _, err := os.Stat(filepath.Dir(store)); !os.IsNotExist(err) {
		left, _ := filepath.Glob(filepath.Join(dir, "new", "*"))
		t.Fatalf("the failed run left %s (%v): %v", filepath.Dir(store), err, left)
	}

	good := demoJob(t)
	good.Checkpoint = store
	mustRun(t, good)
	if _, err := Run(context.Background(), failing, Options{Clock: testClock}); err == nil {
		t.Fatal("a run of an unreadable parquet file succeeded")
	}
	s, err := checkpoints.OpenReadOnly(t.Context(), store)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if c, err := s.Count(t.Context()); err != nil || c.Episodes != 56 {
		t.Fatalf("the store that existed before: %+v, %v; want its 56 episodes", c, err)
	}
}
