package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// bin is the backfill binary built for these tests, root the repository and tmp the package's
// temporary directory.
var bin, root, tmp string

func TestMain(m *testing.M) {
	os.Exit(func() int {
		var err error
		if root, err = harness.RepoRoot("."); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if tmp, err = os.MkdirTemp("", "backfill-cli-*"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(tmp)
		if bin, err = harness.Build(context.Background(), root, tmp); err != nil {
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

// skipped are the names repoCopy leaves out: what a build, a run or a test writes, and git's.
var skipped = map[string]bool{".git": true, "bin": true, ".backfill": true, ".cache": true, "target": true}

// repoCopy copies the repository's files into a new directory laid out as the repository, with
// the test binary at bin/backfill, so that commands run there as in a clone after `make build`
// without writing into the repository. Stores and what builds and runs write are left out.
func repoCopy(t *testing.T, dir string) string {
	t.Helper()
	copyDir := filepath.Join(dir, "backfill")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skipped[d.Name()] || strings.HasSuffix(d.Name(), ".db") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		copyFile(t, path, filepath.Join(copyDir, rel))
		return nil
	})
	if err != nil {
		t.Fatalf("copying the repository: %v", err)
	}
	copyFile(t, bin, filepath.Join(copyDir, "bin", "backfill"))
	return copyDir
}

// demo is the one `make demo` of the package, in a copy of the repository (sharedDemo), and a
// copy of that repository as make demo left it (pristine), before any test ran a command there.
var demo struct {
	once     sync.Once
	dir      string
	pristine string
	res      harness.Result
	err      error
}

// sharedDemo runs `make demo` once for the package in a repository copy beside a link named
// shared to the repository's ../shared when there is one (as on this project's machines), and
// returns the copy and how make ended. The build is TestVersion's: make runs with -o build, the
// test binary standing in for bin/backfill.
func sharedDemo(t *testing.T) (string, harness.Result) {
	t.Helper()
	demo.once.Do(func() {
		demo.err = errors.New("copying the repository failed (see the first test that asked)")
		dir := filepath.Join(tmp, "demo")
		demo.dir, demo.err = repoCopy(t, dir), nil
		if demo.err = linkShared(dir); demo.err != nil {
			return
		}
		demo.res, demo.err = harness.Run(context.Background(), "make", []string{"-o", "build", "demo"}, harness.Options{Dir: demo.dir})
		if demo.err == nil {
			demo.pristine = filepath.Join(tmp, "pristine", "backfill")
			demo.err = copyTree(demo.dir, demo.pristine)
		}
	})
	if demo.err != nil {
		t.Fatalf("make demo: %v", demo.err)
	}
	return demo.dir, demo.res
}

// demoCopy returns a new copy of the repository as `make demo` left it (sharedDemo), in a
// directory of t's beside a link to ../shared when the repository has one, and how make ended.
func demoCopy(t *testing.T) (string, harness.Result) {
	t.Helper()
	_, res := sharedDemo(t)
	parent := t.TempDir()
	dir := filepath.Join(parent, "backfill")
	if err := copyTree(demo.pristine, dir); err != nil {
		t.Fatal(err)
	}
	if err := linkShared(parent); err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// linkShared makes parent/shared a link to the repository's ../shared when there is one, so a
// repository copy in parent finds the datasets where a clone on this project's machines does.
func linkShared(parent string) error {
	if shared := filepath.Join(filepath.Dir(root), "shared"); isDir(shared) {
		return os.Symlink(shared, filepath.Join(parent, "shared"))
	}
	return nil
}

// copyTree copies the directory from to to (which must not exist): directories, regular files
// with their modes and symbolic links. The binary bin/backfill, which no command writes, is
// hard-linked where the file system allows it.
func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case !d.Type().IsRegular():
			return nil
		case rel == filepath.Join("bin", "backfill") && os.Link(path, dst) == nil:
			return nil
		}
		return copyRegular(path, dst)
	})
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyRegular(from, to); err != nil {
		t.Fatal(err)
	}
}

// copyRegular copies the regular file from to to, with its mode.
func copyRegular(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	st, err := os.Stat(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, st.Mode().Perm())
}
