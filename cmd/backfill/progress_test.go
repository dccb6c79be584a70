package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/stages"
)

// lockedBuffer is a buffer the logger and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogProgressTicks: off a terminal a stage logs its progress on a clock of its own while
// units finish from other goroutines, with the total and the rate, and stops with
// the stage: the next stage's lines name the next stage only.
func TestLogProgressTicks(t *testing.T) {
	var buf lockedBuffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	p := &logProgress{every: 20 * time.Millisecond}
	p.Start("extract", 1000)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Add(1)
		}()
	}
	wg.Wait()
	for !strings.Contains(buf.String(), "done=4") {
		time.Sleep(5 * time.Millisecond)
	}
	p.Start("resolve", -1) // stops extract's clock
	for !strings.Contains(buf.String(), "stage=resolve") {
		time.Sleep(5 * time.Millisecond)
	}
	p.Done()
	out := buf.String()
	_, after, _ := strings.Cut(out, "stage=resolve")
	if strings.Contains(after, "stage=extract") {
		t.Errorf("extract logged after resolve started:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.Contains(l, "stage=extract done=4") && !strings.Contains(l, "total=1000 rate_per_s=") {
			t.Errorf("line %q lacks the total and the rate", l)
		}
		if strings.Contains(l, "stage=resolve") && strings.Contains(l, "total=") {
			t.Errorf("a stage of unknown size logs a total: %q", l)
		}
	}
}

// TestRateText: rates read as plain decimals with two significant digits, never in exponent
// form.
func TestRateText(t *testing.T) {
	for r, want := range map[float64]string{110: "110", 112.7: "110", 4.24: "4.2", 0.243: "0.24", 0.00312: "0.0031", 12345: "12000", 0: "0", 1: "1.0"} {
		if got := rateText(r); got != want {
			t.Errorf("rateText(%g) = %q, want %q", r, got, want)
		}
	}
}

// TestTallyCountsOnlyWorkLeft: on a resumed stage the units done before count neither in the
// rate nor in the time left, and the run's time left adds the later stages' estimated requests
// at the rate this run made them.
func TestTallyCountsOnlyWorkLeft(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var tl tally
	tl.ahead = []stages.Work{{Stage: "extract", Units: 20, Requests: 20}, {Stage: "resolve", Units: 2, Requests: 10}}
	tl.begin("extract", 56, t0)
	tl.skipped = 36 // done by an earlier run: emitted at once
	tl.done = 10    // this run's, in 10 s: 1 unit (1 request) a second
	now := t0.Add(10 * time.Second)
	if r := tl.rate(now); r != 1 {
		t.Errorf("rate %g, want 1 (the units done before cost no time)", r)
	}
	if left, ok := tl.left(now); !ok || left != 10*time.Second {
		t.Errorf("stage left %v %v, want 10s: 10 units at 1 a second", left, ok)
	}
	if left, ok := tl.runLeft(now); !ok || left != 20*time.Second {
		t.Errorf("run left %v %v, want 20s: 10 s of extract, then resolve's 10 requests at 1 a second", left, ok)
	}
	tl.done = 20
	tl.begin("resolve", 2, now.Add(10*time.Second)) // extract took 20 s for 20 requests
	if _, ok := tl.left(now.Add(10 * time.Second)); ok {
		t.Errorf("a stage with no unit finished yet has a time left")
	}
	tl.done = 1
	if left, ok := tl.runLeft(now.Add(15 * time.Second)); !ok || left != 5*time.Second {
		t.Errorf("run left in the last stage %v %v, want its own 5 s", left, ok)
	}
	var none tally
	none.begin("extract", 10, t0)
	none.done = 5
	if _, ok := none.runLeft(t0.Add(5 * time.Second)); ok {
		t.Errorf("a run with no estimate of the stages ahead has a time left")
	}
}
