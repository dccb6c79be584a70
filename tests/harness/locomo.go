package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
)

// LoCoMoRun is the fixture of a test that runs the built binary over the first conversations
// of LoCoMo through stub servers of its own: the binary, the test's directory and the subset's
// file in it.
type LoCoMoRun struct {
	Bin, Dir, Input string
}

// NewLoCoMoRun builds the binary and writes the first conversations of the LoCoMo dataset (found
// as testenv.LoCoMo finds it, or the test fails or skips) into a directory of the test.
func NewLoCoMoRun(t *testing.T, conversations int) *LoCoMoRun {
	t.Helper()
	root, err := RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src := testenv.LoCoMo(t, root)
	f := &LoCoMoRun{Dir: t.TempDir()}
	if f.Bin, err = Build(t.Context(), root, f.Dir); err != nil {
		t.Fatal(err)
	}
	f.Input = filepath.Join(f.Dir, "locomo.json")
	if err := FilterLoCoMo(src, f.Input, conversations); err != nil {
		t.Fatal(err)
	}
	return f
}

// Stub starts a `backfill llm-stub` subprocess of its own with flags, stopped when the test
// ends, and returns its base URL.
func (f *LoCoMoRun) Stub(t *testing.T, flags ...string) string {
	t.Helper()
	return LLMStub(t, f.Bin, flags...)
}

// Job writes a job named name over the subset, with its own checkpoint in the test's directory,
// that sends every request to the stub at base (concurrency 4).
func (f *LoCoMoRun) Job(t *testing.T, name, base string) (job, checkpoint string) {
	t.Helper()
	checkpoint = filepath.Join(f.Dir, name+".db")
	job = filepath.Join(f.Dir, name+".yaml")
	yaml := StubJobYAML(name, checkpoint, fmt.Sprintf("path: %s\n    format: locomo", f.Input), base, 4)
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return job, checkpoint
}

// MustStubStats reads the counters of the stub at base, or fails the test.
func MustStubStats(t *testing.T, base string) stub.Stats {
	t.Helper()
	st, err := StubStats(base)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
