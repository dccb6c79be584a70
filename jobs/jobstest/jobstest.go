// Package jobstest holds what the tests of the job packages (jobs, jobs/pipeline, jobs/runner,
// jobs/planner) share: the bundled example jobs with absolute paths and a store of their own, the
// demo against an LLM stub, and Parquet exports to compare.
package jobstest

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/stages"
)

// Root is the repository's root directory.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("locating the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// NoEnv is an environment without variables.
func NoEnv(string) (string, bool) { return "", false }

// ExampleJob loads jobs/examples/NAME.yaml with sets applied, its source paths made absolute and
// its store in a temp dir.
func ExampleJob(t testing.TB, name string, sets ...string) *pipeline.Job {
	t.Helper()
	root := Root(t)
	env := map[string]string{"BACKFILL_CHECKPOINT": filepath.Join(t.TempDir(), name+".db")}
	j, err := pipeline.Load(filepath.Join(root, "jobs/examples", name+".yaml"), sets, func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range j.Sources {
		j.Sources[i].Path = filepath.Join(root, j.Sources[i].Path)
	}
	return j
}

// DemoJob is ExampleJob of the demo.
func DemoJob(t testing.TB, sets ...string) *pipeline.Job {
	t.Helper()
	return ExampleJob(t, "demo", sets...)
}

// LoadDemo loads the demo job with sets, returning the error instead of failing.
func LoadDemo(t testing.TB, sets ...string) (*pipeline.Job, error) {
	t.Helper()
	return pipeline.Load(filepath.Join(Root(t), "jobs/examples/demo.yaml"), sets, NoEnv)
}

// StartStub serves h on loopback and returns its base URL.
func StartStub(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// StubJob is the demo job (record_time reference) with both chat and embeddings sent to the
// stub at base, under a priced model. Its 5 s timeout per attempt is far above the stub's answer
// times even on a loaded machine, so an answer is never cut off (and paid twice) by the client;
// tests of timeouts set a shorter one.
func StubJob(t testing.TB, base string, sets ...string) *pipeline.Job {
	t.Helper()
	return DemoJob(t, append([]string{"record_time=reference", "llm.provider=openai", "llm.base_url=" + base,
		"llm.model=gpt-4o-mini", "llm.timeout_seconds=5", "embedder.provider=openai", "embedder.base_url=" + base,
		"embedder.model=text-embedding-3-small"}, sets...)...)
}

// OpenStore opens the job's checkpoint store for writing; the caller closes it.
func OpenStore(t testing.TB, j *pipeline.Job) *checkpoints.Store {
	t.Helper()
	store, err := checkpoints.Open(context.Background(), j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// PromptsDir is a prompts directory (llm.prompts_dir) whose system template of task is the
// shipped one with extra appended.
func PromptsDir(t testing.TB, task, extra string) string {
	t.Helper()
	dir := t.TempDir()
	sys, err := os.ReadFile(filepath.Join(Root(t), "llm", "wire", "prompts", task+".system.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, task+".system.tmpl"), append(sys, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Export writes the Parquet export of the job's store and returns its files by name.
func Export(t testing.TB, j *pipeline.Job) map[string][]byte {
	t.Helper()
	store := OpenStore(t, j)
	defer store.Close()
	dir := t.TempDir()
	if err := parquet.Export(context.Background(), stages.GraphSource(store, j.RecordTime), dir); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}

// SameExport requires two exports to hold the same files with the same bytes.
func SameExport(t testing.TB, a, b map[string][]byte) {
	t.Helper()
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("exports have %d and %d files", len(a), len(b))
	}
	for name, x := range a {
		if !bytes.Equal(x, b[name]) {
			t.Errorf("%s differs", name)
		}
	}
}

// NewLogger logs everything, debug included, as text into buf.
func NewLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Keys lists the dotted keys of the job's values under the top-level key section, in
// declaration order (pipeline.Keys): a list or a mapping (of values or of sections) is one key.
func Keys(t testing.TB, section string) []string {
	t.Helper()
	var out []string
	for _, k := range pipeline.Keys().Keys() {
		p := k.Path
		if i := strings.IndexAny(p, "[*"); i > 0 {
			p = strings.TrimSuffix(p[:i], ".")
		}
		if strings.HasPrefix(p, section+".") && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("the job has no section %s", section)
	}
	return out
}
