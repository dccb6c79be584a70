package recipes

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// bin is the backfill binary built for these tests, root the repository.
var bin, root string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		if root, err = harness.RepoRoot("."); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		dir, err := os.MkdirTemp("", "backfill-recipes-*")
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

// shell runs a bash script from the repository root with env added, failing t unless it exits
// 0. Inside the script "backfill" is the test binary.
func shell(t *testing.T, env []string, script string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), "bash", []string{"-c", "set -euo pipefail\nbackfill() { \"$BACKFILL_BIN\" \"$@\"; }\n" + script},
		harness.Options{Dir: root, Env: append([]string{"BACKFILL_BIN=" + bin}, env...)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("%s\nexit %d\nstdout:\n%s\nstderr:\n%s", script, res.Code, res.Stdout, harness.Tail(res.Stderr, 40))
	}
	return res
}

// exported are the "VAR=value" lines a script printed with `printf 'VAR=%s\n' "$VAR"`.
var exported = regexp.MustCompile(`(?m)^([A-Z0-9_]+)=(.*)$`)

// vars returns the variables of exported lines.
func vars(out string) map[string]string {
	m := map[string]string{}
	for _, g := range exported.FindAllStringSubmatch(out, -1) {
		m[g[1]] = g[2]
	}
	return m
}
