package harness

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs"
)

// BuildBinary builds cmd/backfill of the module around the working directory into a
// directory of the test, or fails the test.
func BuildBinary(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := Build(context.Background(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// OpenStore opens a checkpoint store, or fails the test. The caller closes it (before the next
// run that uses the store).
func OpenStore(t testing.TB, path string) *checkpoints.Store {
	t.Helper()
	s, err := checkpoints.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ReadReport reads a run report written by `backfill run --report`, or fails the test.
func ReadReport(t testing.TB, path string) jobs.Report {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r jobs.Report
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
