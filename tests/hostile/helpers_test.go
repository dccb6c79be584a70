package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		dir, err := os.MkdirTemp("", "backfill-hostile-")
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

// run runs the binary in dir and fails the test on a crash (a Go panic or fatal error).
func run(t *testing.T, dir string, env []string, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), backfill(t), args, harness.Options{Dir: dir, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "fatal error:") || res.Signal != "" {
		t.Fatalf("backfill %q crashed (exit %d, signal %q):\n%s", args, res.Code, res.Signal, res.Stderr)
	}
	return res
}

// want requires an exit code and substrings of stderr.
func want(t *testing.T, res harness.Result, code int, stderr ...string) {
	t.Helper()
	if res.Code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.Code, code, res.Stdout, res.Stderr)
	}
	for _, s := range stderr {
		if !strings.Contains(res.Stderr, s) {
			t.Fatalf("stderr does not say %q:\n%s", s, res.Stderr)
		}
	}
}

// writeFile writes a file, creating its directory, and returns its path.
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

// line is one JSON Lines episode.
func line(group, at, speaker, content string) string {
	b, _ := json.Marshal(map[string]string{"group_id": group, "reference_time": at, "speaker": speaker, "content": content})
	return string(b) + "\n"
}

// conversation is a small input of two groups whose offline extraction gives entities and facts.
func conversation() string {
	return line("alice", "2024-01-02T10:00:00Z", "Alice", "I moved to Berlin and started working at Acme with Bob.") +
		line("alice", "2024-02-03T10:00:00Z", "Bob", "Alice and I went hiking with Carol near Munich.") +
		line("alice", "2024-03-04T10:00:00Z", "Alice", "I left Acme and joined Globex in Hamburg with Carol.") +
		line("bob", "2024-01-05T10:00:00Z", "Bob", "Dana and Erik opened a bakery in Lisbon.") +
		line("bob", "2024-02-06T10:00:00Z", "Dana", "Erik and I sold the bakery in Lisbon to Frank.")
}

// offlineJob writes a job over in (JSON Lines) with the offline responder and record_time
// reference, checkpoint cp, plus extra top-level YAML; it returns the job's path.
func offlineJob(t *testing.T, dir, name, in, cp, extra string) string {
	t.Helper()
	return writeFile(t, filepath.Join(dir, name+".yaml"), "name: "+name+"\ncheckpoint: "+cp+
		"\nrecord_time: reference\nsources:\n  - path: "+in+"\n"+extra)
}

// readFileT reads a file or fails the test.
func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// locomoFile writes a small LoCoMo file (two sessions of one conversation) and returns its path.
func locomoFile(t *testing.T, path string) string {
	t.Helper()
	return writeFile(t, path, `[{"sample_id":"conv-1","conversation":{"speaker_a":"Caroline","speaker_b":"Melanie",
  "session_1_date_time":"1:56 pm on 8 May, 2023",
  "session_1":[{"speaker":"Caroline","dia_id":"D1:1","text":"I went to the LGBTQ support group yesterday."},
               {"speaker":"Melanie","dia_id":"D1:2","text":"That is great! I painted a sunrise at the lake."}],
  "session_2_date_time":"1:14 pm on 25 May, 2023",
  "session_2":[{"speaker":"Caroline","dia_id":"D2:1","text":"I am moving to Boston in June for a new job."}]},
  "qa":[{"question":"Where is Caroline moving?","answer":"Boston","evidence":["D2:1"],"category":1}]}]`)
}
