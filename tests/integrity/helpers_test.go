package integrity

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// backfill builds the binary once for the package.
func backfill(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		root, err := harness.RepoRoot(".")
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "backfill-integrity-")
		if err == nil {
			err = os.Chmod(dir, 0o755) // tests run it as an unprivileged user too
		}
		if err != nil {
			buildErr = err
			return
		}
		binPath, buildErr = harness.Build(t.Context(), root, dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// TestMain removes the binary built for the package.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// repoPath is a path inside the repository.
func repoPath(t *testing.T, rel string) string {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, rel)
}

// run runs the binary and fails the test on a crash (a Go panic or fatal error).
func run(t *testing.T, args []string, o harness.Options) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), backfill(t), args, o)
	if err != nil {
		t.Fatal(err)
	}
	noCrash(t, res)
	return res
}

func noCrash(t *testing.T, res harness.Result) {
	t.Helper()
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "fatal error:") || res.Signal != "" {
		t.Fatalf("backfill crashed (exit %d, signal %q):\n%s", res.Code, res.Signal, res.Stderr)
	}
}

// want requires an exit code and, when not empty, substrings of stderr.
func want(t *testing.T, what string, res harness.Result, code int, stderr ...string) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", what, res.Code, code, res.Stdout, res.Stderr)
	}
	if code != 0 {
		t.Logf("%s: exit %d: %s", what, code, errLine(res.Stderr))
	}
	for _, s := range stderr {
		if !strings.Contains(res.Stderr, s) {
			t.Fatalf("%s: stderr does not say %q:\n%s", what, s, res.Stderr)
		}
	}
}

// errLine is the last "backfill: …" line of a process's stderr (the error of a failed command).
func errLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "backfill") {
			return lines[i]
		}
	}
	return ""
}

// writeFile writes a file, creating its directory.
func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// offlineJob is a job reading one source (the YAML of a sources[] entry after "- ", further lines
// indented by four spaces) with the offline responder and record_time: reference; extra is
// further top-level YAML.
func offlineJob(name, checkpoint, source, extra string) string {
	return fmt.Sprintf("name: %s\ncheckpoint: %s\nrecord_time: reference\nsources:\n  - %s\n%s", name, checkpoint, source, extra)
}

// line is one JSON Lines episode.
func line(group, at, speaker, content string) string {
	b, _ := json.Marshal(map[string]string{"group_id": group, "reference_time": at, "speaker": speaker, "content": content})
	return string(b) + "\n"
}

// readQuarantine reads a checkpoint's quarantine file (absent: no lines).
func readQuarantine(t *testing.T, checkpoint string) []harness.QuarantineLine {
	t.Helper()
	q, err := harness.ReadQuarantine(checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// readReport reads a run report.
func readReport(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// namespaced runs the binary in a new user and mount namespace (unshare) after the shell setup
// (mounts) and returns how it ended.
func namespaced(t *testing.T, setup string, args ...string) harness.Result {
	t.Helper()
	return inNamespace(t, setup+` && exec "$BIN" "$@"`, args...)
}

// inNamespace runs a shell script (with "$BIN", the binary, and args as "$@") in a new user
// and mount namespace; it skips the test when the machine does not allow user namespaces.
func inNamespace(t *testing.T, script string, args ...string) harness.Result {
	t.Helper()
	return inNamespaceEnv(t, nil, script, args...)
}

// inNamespaceEnv is inNamespace with env (NAME=value) added to the script's environment.
func inNamespaceEnv(t *testing.T, env []string, script string, args ...string) harness.Result {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed")
	}
	if out, err := exec.Command("unshare", "-Urm", "true").CombinedOutput(); err != nil {
		t.Skipf("no user namespaces here (unshare -Urm: %v %s)", err, out)
	}
	res, err := harness.Run(t.Context(), "unshare", append([]string{"-Urm", "sh", "-c", script, "sh"}, args...),
		harness.Options{Env: append([]string{"BIN=" + backfill(t)}, env...)})
	if err != nil {
		t.Fatal(err)
	}
	noCrash(t, res)
	return res
}

// readOnlyMount is the shell setup that bind-mounts dir read-only onto itself.
func readOnlyMount(dir string) string {
	return fmt.Sprintf(`mount --bind %[1]q %[1]q && mount -o remount,bind,ro %[1]q`, dir)
}

// unprivileged returns the options that run the binary as an ordinary user: as root (who reads
// every file) it drops to nobody, and makes dir and its parents reachable for that user.
func unprivileged(t *testing.T, dir string) harness.Options {
	t.Helper()
	if os.Geteuid() != 0 {
		return harness.Options{}
	}
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(d, st.Mode().Perm()|0o055); err != nil {
				t.Fatal(err)
			}
		}
	}
	return harness.Options{SysProcAttr: &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}}
}
