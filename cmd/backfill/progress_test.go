package main

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
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
