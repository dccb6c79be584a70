package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// bin is the backfill binary built for these tests; root the repository.
var bin, root string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		if root, err = harness.RepoRoot("."); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		dir, err := os.MkdirTemp("", "backfill-cli-*")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		if bin, err = harness.Build(context.Background(), root, dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}())
}

// run runs the binary in dir ("" = the repository root) with env added and fails the test on a
// crash.
func run(t *testing.T, dir string, env []string, args ...string) harness.Result {
	t.Helper()
	if dir == "" {
		dir = root
	}
	res, err := harness.Run(t.Context(), bin, args, harness.Options{Dir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stderr, "panic:") || res.Signal != "" {
		t.Fatalf("backfill %q crashed:\n%s", args, res.Stderr)
	}
	return res
}

// demoCopy copies what the demo needs into a new directory laid out as the repository, so that
// the demo and its relative paths run there without writing into the repository.
func demoCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range []string{"scripts/demo.sh", "jobs/examples/demo.yaml", "examples/conversations.jsonl",
		"examples/records.jsonl", "examples/gold/demo.yaml"} {
		copyFile(t, filepath.Join(root, p), filepath.Join(dir, p))
	}
	copyFile(t, bin, filepath.Join(dir, "bin", "backfill"))
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, st.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}
