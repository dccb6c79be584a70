// Package evalinputs runs `backfill eval` and `backfill diff` on every input they read made
// empty, truncated or garbage, and with every numeric flag at its type's extremes, NaN and the
// infinities (issue 35, classes 4 and 8): each must end in an error that names the file or the
// flag (exit 1, or 2 for a usage error), never a panic. It also checks that a slice of the gold
// set (scripts/gold_slice.py) scores as its groups do in the whole set's graph. There is no
// library code here.
package evalinputs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/tests/harness"
)

var (
	once     sync.Once
	bin      string
	fixture  string // a directory with the gold set's graph: gold.db, export/, eval.json, the job, gold and dataset files
	setupErr error
)

// setup builds the binary and, once for the package, the gold set's graph with the offline
// responder, its export and an eval report to compare against.
func setup(t *testing.T) (string, string) {
	t.Helper()
	once.Do(func() {
		root, err := harness.RepoRoot(".")
		if err != nil {
			setupErr = err
			return
		}
		dir, err := os.MkdirTemp("", "backfill-evalinputs-")
		if err != nil {
			setupErr = err
			return
		}
		fixture = dir
		if bin, err = harness.Build(t.Context(), root, dir); err != nil {
			setupErr = err
			return
		}
		copies := map[string]string{"jobs/examples/gold.yaml": "job.yaml", "examples/gold/gold.yaml": "gold.yaml",
			"examples/gold/conversations.jsonl": "examples/gold/conversations.jsonl", "examples/gold/records.jsonl": "examples/gold/records.jsonl"}
		for from, to := range copies {
			b, err := os.ReadFile(filepath.Join(root, from))
			if err == nil {
				err = os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, to), b, 0o644)
			}
			if err != nil {
				setupErr = err
				return
			}
		}
		dataset := `[{"sample_id": "emma", "qa": [{"question": "Where does Emma work?", "answer": "Initech", "evidence": ["D1:1"], "category": 4}]}]`
		if err := os.WriteFile(filepath.Join(dir, "dataset.json"), []byte(dataset), 0o644); err != nil {
			setupErr = err
			return
		}
		for _, args := range [][]string{
			{"run", "job.yaml", "--checkpoint", "gold.db"},
			{"export", "job.yaml", "--checkpoint", "gold.db", "--out", "export"},
			{"eval", "job.yaml@gold.db", "--gold", "gold.yaml", "--json", "eval.json"},
		} {
			res, err := harness.Run(t.Context(), bin, args, harness.Options{Dir: dir})
			if err == nil && res.Code != 0 {
				err = &exitError{args, res}
			}
			if err != nil {
				setupErr = err
				return
			}
		}
	})
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return bin, fixture
}

type exitError struct {
	args []string
	res  harness.Result
}

func (e *exitError) Error() string {
	return fmt.Sprintf("backfill %s: exit %d\n%s", strings.Join(e.args, " "), e.res.Code, e.res.Stderr)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture != "" {
		os.RemoveAll(fixture)
	}
	os.Exit(code)
}

// copyDir copies the fixture into a fresh directory for a test that damages a file.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if filepath.Base(p) == "backfill" { // the binary
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// run runs the binary in dir and fails on a crash.
func run(t *testing.T, bin, dir string, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), bin, args, harness.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "goroutine ") || strings.Contains(res.Stderr, "fatal error:") || res.Signal != "" {
		t.Fatalf("backfill %s crashed (exit %d, signal %q):\n%s", strings.Join(args, " "), res.Code, res.Signal, res.Stderr)
	}
	return res
}

// damaged are the ways a file the tool reads can be broken, from its good bytes.
func damaged(good []byte) map[string][]byte {
	return map[string][]byte{
		"empty":     {},
		"truncated": good[:len(good)/2],
		"garbage":   []byte("\x00\x01\x02 not what you think \xff\xfe" + strings.Repeat("PAR1 SQLite format 3 {[", 30)),
	}
}

// TestDamagedInputs damages each file eval and diff read and requires an error naming it.
func TestDamagedInputs(t *testing.T) {
	bin, fix := setup(t)
	cases := []struct {
		file string   // relative to the fixture
		args []string // the command that reads it
		name string   // what the error must name ("" = the file's base name)
	}{
		{"job.yaml", []string{"eval", "job.yaml@gold.db"}, ""},
		{"gold.db", []string{"eval", "job.yaml@gold.db"}, ""},
		{"gold.db", []string{"diff", "job.yaml@gold.db", "export"}, ""},
		{"gold.yaml", []string{"eval", "job.yaml@gold.db", "--gold", "gold.yaml"}, ""},
		{"gold.yaml", []string{"diff", "job.yaml@gold.db", "export", "--gold", "gold.yaml"}, ""},
		{"dataset.json", []string{"eval", "job.yaml@gold.db", "--dataset", "locomo", "dataset.json"}, ""},
		{"eval.json", []string{"eval", "job.yaml@gold.db", "--gold", "gold.yaml", "--against", "eval.json"}, ""},
	}
	for _, table := range []string{parquet.EpisodesFile, parquet.EntitiesFile, parquet.FactsFile, parquet.MentionsFile,
		parquet.CommunitiesFile, parquet.HasMemberFile} {
		cases = append(cases,
			struct {
				file string
				args []string
				name string
			}{"export/" + table, []string{"eval", "export"}, ""},
			struct {
				file string
				args []string
				name string
			}{"export/" + table, []string{"diff", "job.yaml@gold.db", "export", "--gold", "gold.yaml"}, ""})
	}
	for _, c := range cases {
		good, err := os.ReadFile(filepath.Join(fix, c.file))
		if err != nil {
			t.Fatal(err)
		}
		for how, bad := range damaged(good) {
			t.Run(strings.Join(c.args[:1], "")+"/"+c.file+"/"+how, func(t *testing.T) {
				dir := copyDir(t, fix)
				path := filepath.Join(dir, c.file)
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				os.Remove(path + "-wal") // a damaged store has no good log to replay
				os.Remove(path + "-shm")
				res := run(t, bin, dir, c.args...)
				if c.file == "job.yaml" && how == "truncated" && res.Code == 0 {
					return // the first half of the job is a valid job of its own (no crash is what counts)
				}
				if res.Code != 1 && res.Code != 2 {
					t.Fatalf("backfill %s with %s %s: exit %d, want 1 or 2\n%s", strings.Join(c.args, " "), how, c.file, res.Code, res.Stderr)
				}
				name := c.name
				if name == "" {
					name = filepath.Base(c.file)
				}
				if !strings.Contains(res.Stderr, name) {
					t.Errorf("backfill %s with %s %s: the error does not name %s:\n%s", strings.Join(c.args, " "), how, c.file, name, res.Stderr)
				}
			})
		}
	}
}

// TestNumericFlags gives each numeric flag of eval and diff its type's extremes, NaN and the
// infinities: a usage error (exit 2) naming the flag, or, inside the bounds, a normal run.
func TestNumericFlags(t *testing.T) {
	bin, fix := setup(t)
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"eval", "job.yaml@gold.db", "--k", "4611686018427387904"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "9223372036854775807"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "9223372036854775808"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "-9223372036854775808"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "0"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "10001"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "NaN"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--k", "10000,1,1,1"}, 0},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "NaN"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "nan"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "Inf"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "-Inf"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "1.5"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "-1.5"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "1.8e308"}, 2},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "-1"}, 0},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "1"}, 0},
		{[]string{"eval", "job.yaml@gold.db", "--min-cosine", "-0"}, 0},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "0"}, 2},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "-9223372036854775808"}, 2},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "9223372036854775807"}, 2},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "9223372036854775808"}, 2},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "NaN"}, 2},
		{[]string{"diff", "job.yaml@gold.db", "export", "--limit", "100000"}, 0},
	} {
		flag := c.args[len(c.args)-2]
		t.Run(c.args[0]+flag+"="+c.args[len(c.args)-1], func(t *testing.T) {
			res := run(t, bin, fix, c.args...)
			if res.Code != c.code {
				t.Fatalf("backfill %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), res.Code, c.code, res.Stdout, res.Stderr)
			}
			if c.code == 2 && !strings.Contains(res.Stderr, strings.TrimLeft(flag, "-")) {
				t.Errorf("backfill %s: the error does not name %s:\n%s", strings.Join(c.args, " "), flag, res.Stderr)
			}
		})
	}
}

// TestDatasetWithoutQuestions: a dataset file that parses but holds no question is an error
// naming the file, not a report of zero questions.
func TestDatasetWithoutQuestions(t *testing.T) {
	bin, fix := setup(t)
	dir := copyDir(t, fix)
	for _, text := range []string{"[]", `[{"sample_id": "x", "qa": []}]`, "{}"} {
		if err := os.WriteFile(filepath.Join(dir, "dataset.json"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		res := run(t, bin, dir, "eval", "job.yaml@gold.db", "--dataset", "locomo", "dataset.json")
		if res.Code != 1 || !strings.Contains(res.Stderr, "dataset.json") {
			t.Errorf("dataset %s: exit %d, want 1 naming dataset.json:\n%s", text, res.Code, res.Stderr)
		}
	}
}

// TestUnreachableBoltGraph: a Bolt GRAPH nobody answers is an error naming it.
func TestUnreachableBoltGraph(t *testing.T) {
	bin, fix := setup(t)
	for _, args := range [][]string{
		{"eval", "bolt://127.0.0.1:1"},
		{"diff", "bolt://127.0.0.1:1", "export"},
		{"eval", "job.yaml@bolt://127.0.0.1:1", "--dataset", "locomo", "dataset.json"},
		{"eval", "bolt://user:secret@127.0.0.1:1"},
	} {
		res := run(t, bin, fix, args...)
		if res.Code != 1 || !strings.Contains(res.Stderr, "127.0.0.1:1") || strings.Contains(res.Stderr, "secret") {
			t.Errorf("backfill %s: exit %d, want 1 naming the server (and no password):\n%s", strings.Join(args, " "), res.Code, res.Stderr)
		}
	}
}
