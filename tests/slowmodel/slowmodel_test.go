package slowmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// latency is how long the slow model takes per chat request when one SIGINT lets the requests in
// flight finish; abortable is its latency when a second SIGINT must abort them: long enough
// that a loaded machine still sends the second signal while they are in flight, and a run
// that failed to abort them ends only after it.
const (
	latency   = 1500 * time.Millisecond
	abortable = 20 * time.Second
)

// grace is how late a request that was sent before the signal may arrive at the server.
const grace = 200 * time.Millisecond

// arrivals records when each chat request reached the server; each takes latency.
type arrivals struct {
	latency time.Duration
	mu      sync.Mutex
	at      []time.Time
}

func (a *arrivals) delay(task string) time.Duration {
	if task == harness.EmbeddingsTask {
		return 0
	}
	a.mu.Lock()
	a.at = append(a.at, time.Now())
	a.mu.Unlock()
	return a.latency
}

func (a *arrivals) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.at)
}

// after counts the requests that arrived after t.
func (a *arrivals) after(t time.Time) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, at := range a.at {
		if at.After(t) {
			n++
		}
	}
	return n
}

func TestInterruptsWithASlowModel(t *testing.T) {
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin := harness.BuildBinary(t)
	for _, signals := range []int{1, 2} {
		t.Run(fmt.Sprint(signals, " SIGINT"), func(t *testing.T) {
			arr := &arrivals{latency: latency}
			if signals == 2 {
				arr.latency = abortable
			}
			s, err := harness.StartStub(stub.Options{}, arr.delay)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			dir := t.TempDir()
			job, reportFile := writeJob(t, root, dir, s.URL), filepath.Join(dir, "report.json")
			p, err := harness.Start(t.Context(), bin, []string{"run", job, "--report", reportFile}, harness.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// Both units in flight are in their extraction call; the units after them would
			// start their own calls once these end.
			for arr.count() < 2 {
				time.Sleep(10 * time.Millisecond)
			}
			sent := time.Now()
			if err := p.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			if signals == 2 {
				// The second Ctrl-C of a user who read the warning. One sent before the process
				// took the first can merge with it (the kernel and the Go runtime keep one pending
				// signal of a kind), so the test waits for the warning as a user would.
				if _, ok := p.WaitLine(t.Context(), "interrupt again to abort"); !ok {
					res, _ := p.Wait()
					t.Fatalf("no warning after the first SIGINT\n%s", res.Stderr)
				}
				if err := p.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			}
			res, err := p.Wait()
			if err != nil {
				t.Fatal(err)
			}
			if res.Code != 130 {
				t.Fatalf("exit %d, want 130\n%s", res.Code, res.Stderr)
			}
			if n := arr.after(sent.Add(grace)); n != 0 {
				t.Errorf("%d LLM requests started after the interrupt", n)
			}
			if !s.WaitIdle(10 * time.Second) {
				t.Fatal("the stub is still serving after the run exited")
			}
			var rep report.Report
			harness.ReadJSON(t, reportFile, &rep)
			made := arr.count()
			if got := rep.LLMByStage["extract"].Calls; got != made {
				t.Errorf("report counts %d extraction calls, the server saw %d", got, made)
			}
			if signals == 2 && s.Aborted() == 0 {
				t.Error("the second SIGINT cancelled no request in flight")
			}
			if signals == 1 && s.Aborted() != 0 {
				t.Errorf("the first SIGINT cancelled %d requests in flight; it must let them finish", s.Aborted())
			}
			t.Logf("%d SIGINT: exit 130 %s after the first, %d requests made, %d cancelled", signals,
				time.Since(sent).Round(10*time.Millisecond), made, s.Aborted())
		})
	}
}

// writeJob writes the demo job (its conversations) against the LLM server at url with two
// calls in flight.
func writeJob(t *testing.T, root, dir, url string) string {
	t.Helper()
	text := fmt.Sprintf(`name: slow
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: jsonl
    source: message
    mapping: {group: group_id, reference_time: reference_time, speaker: speaker, body: content}
llm:
  provider: openai
  base_url: %s
  model: slow-chat
  concurrency: 2
embedder:
  provider: offline
`, filepath.Join(dir, "slow.db"), filepath.Join(root, "examples/conversations.jsonl"), url)
	job := filepath.Join(dir, "slow.yaml")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job
}
