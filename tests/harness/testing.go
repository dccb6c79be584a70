package harness

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
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

// ReadJSON decodes the JSON file at path (such as a run report) into v, or fails the test.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}
