package integrity

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// gatedStub serves providers/stub behind a gate: requests wait until open is called, so a run
// stays in its first LLM stage for as long as the test needs.
type gatedStub struct {
	URL      string
	gate     chan struct{}
	once     sync.Once
	mu       sync.Mutex
	requests int
}

func newGatedStub(t *testing.T) *gatedStub {
	t.Helper()
	g := &gatedStub{gate: make(chan struct{})}
	inner := stub.New(stub.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.requests++
		g.mu.Unlock()
		select {
		case <-g.gate:
		case <-r.Context().Done():
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { g.open(); srv.Close() })
	g.URL = srv.URL + "/v1"
	return g
}

func (g *gatedStub) open() { g.once.Do(func() { close(g.gate) }) }

// waitRequest waits until a request has reached the stub (the run is inside an LLM stage).
func (g *gatedStub) waitRequest(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		n := g.requests
		g.mu.Unlock()
		if n > 0 {
			return
		}
	}
	t.Fatal("no LLM request within 60 s")
}

// stubJob writes a job on the bundled conversations that asks the stub at base.
func stubJob(t *testing.T, dir, name, base string) (job, checkpoint string) {
	t.Helper()
	checkpoint = filepath.Join(dir, name+".db")
	source := "path: " + repoPath(t, "examples/conversations.jsonl")
	job = writeFile(t, filepath.Join(dir, name+".yaml"), harness.StubJobYAML(name, checkpoint, source, base, 2))
	return job, checkpoint
}

// TestConcurrentRuns: a second `run` on a checkpoint a run holds fails at once (exit 1) naming
// the store and the holder's pid and host; status, export and query work beside the run; the
// first run completes, and its export equals that of a single run on a fresh checkpoint.
func TestConcurrentRuns(t *testing.T) {
	bin := backfill(t)
	dir := t.TempDir()
	g := newGatedStub(t)
	job, checkpoint := stubJob(t, dir, "twice", g.URL)
	first, err := harness.Start(t.Context(), bin, []string{"run", job}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.waitRequest(t) // the first run holds the store and waits on the LLM

	start := time.Now()
	second := run(t, []string{"run", job}, harness.Options{})
	want(t, "second run", second, 1, checkpoint, fmt.Sprintf("pid %d", first.Pid()))
	host, _ := os.Hostname()
	if !strings.Contains(errLine(second.Stderr), "host "+host) {
		t.Errorf("the error does not name the host %s: %s", host, errLine(second.Stderr))
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the second run took %v to fail; it must fail at once", d)
	}

	// Read-only commands beside the run.
	want(t, "status during the run", run(t, []string{"status", job}, harness.Options{}), 0)
	want(t, "export during the run", run(t, []string{"export", job, "--out", filepath.Join(dir, "during")}, harness.Options{}), 0)
	want(t, "query during the run", run(t, []string{"query", job, "--json"}, harness.Options{}), 0)

	g.open()
	res, err := first.Wait()
	if err != nil {
		t.Fatal(err)
	}
	noCrash(t, res)
	want(t, "first run", res, 0)

	// A single run on a fresh checkpoint, with the same answers.
	single, singleCP := stubJob(t, dir, "once", g.URL)
	want(t, "single run", run(t, []string{"run", single}, harness.Options{}), 0)
	a, b := filepath.Join(dir, "export-twice"), filepath.Join(dir, "export-once")
	want(t, "export", run(t, []string{"export", job, "--out", a}, harness.Options{}), 0)
	want(t, "export", run(t, []string{"export", single, "--out", b, "--checkpoint", singleCP}, harness.Options{}), 0)
	if err := harness.CompareDirs(b, a); err != nil {
		t.Errorf("the export after the refused second run differs from a single run's: %v", err)
	}
}

// TestReadOnlyStore: status, export, query and plan read a store on a read-only mount; run on it
// fails with an error naming the store and saying it is read-only.
func TestReadOnlyStore(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "ro")
	checkpoint := filepath.Join(store, "cp.db")
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao.")+
		line("g", "2024-03-02T09:00:00Z", "Alice", "Alice moved to Naver."))
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("ro", checkpoint, "path: "+input, ""))
	want(t, "run", run(t, []string{"run", job}, harness.Options{}), 0)
	out := filepath.Join(dir, "out")
	mount := readOnlyMount(store)
	for _, args := range [][]string{
		{"status", job}, {"status", job, "--group", "g"}, {"query", job, "--group", "g", "--json"},
		{"export", job, "--out", out}, {"plan", job},
	} {
		res := namespaced(t, mount, args...)
		want(t, strings.Join(args[:1], " ")+" on a read-only mount", res, 0)
	}
	if _, err := os.Stat(filepath.Join(out, "facts.parquet")); err != nil {
		t.Errorf("export on a read-only mount wrote no facts: %v", err)
	}
	res := namespaced(t, mount, "run", job)
	want(t, "run on a read-only mount", res, 1, checkpoint, "read-only")
}

// TestStoreErrors: a checkpoint that is not a database, and one on a full disk, fail with an
// error naming the file and the problem.
func TestStoreErrors(t *testing.T) {
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
	notDB := writeFile(t, filepath.Join(dir, "notes.txt"), strings.Repeat("these are my notes, not a database\n", 200))
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("err", notDB, "path: "+input, ""))
	for _, cmd := range []string{"run", "status", "export"} {
		args := []string{cmd, job}
		if cmd == "export" {
			args = append(args, "--out", filepath.Join(dir, "out"))
		}
		want(t, cmd+" on a text file", run(t, args, harness.Options{}), 1, notDB, "is not a SQLite database")
	}
	if b, _ := os.ReadFile(notDB); !strings.HasPrefix(string(b), "these are my notes") {
		t.Error("the text file was changed")
	}

	// A full disk: a 64 KiB file system holds the store's first pages, not a run's output.
	full := filepath.Join(dir, "full")
	if err := os.Mkdir(full, 0o755); err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for i := range 400 {
		big.WriteString(line(fmt.Sprintf("g%d", i%20), fmt.Sprintf("2024-03-01T09:%02d:%02dZ", i/60, i%60), "Alice",
			fmt.Sprintf("Alice met Bob number %d at the Kakao office in Pangyo and talked about payments.", i)))
	}
	bigInput := writeFile(t, filepath.Join(dir, "big.jsonl"), big.String())
	fullCP := filepath.Join(full, "cp.db")
	fullJob := writeFile(t, filepath.Join(dir, "full.yaml"), offlineJob("full", fullCP, "path: "+bigInput, ""))
	res := namespaced(t, fmt.Sprintf("mount -t tmpfs -o size=64k tmpfs %q", full), "run", fullJob)
	want(t, "run on a full disk", res, 1, fullCP, "the disk is full")
	_ = context.Background
}
