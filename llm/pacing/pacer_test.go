package pacing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// fakeClock advances only when a caller sleeps; good for one goroutine at a time.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// starts acquires and releases n times with the given token estimate and returns the start times.
func starts(t *testing.T, p *Pacer, clk *fakeClock, n, tokens int) []time.Time {
	t.Helper()
	out := make([]time.Time, 0, n)
	for range n {
		if err := p.Acquire(context.Background(), tokens); err != nil {
			t.Fatal(err)
		}
		out = append(out, clk.Now())
		p.Release()
	}
	return out
}

// maxInWindow is the largest number of times in any half-open window [t, t+w).
func maxInWindow(ts []time.Time, w time.Duration) int {
	best, j := 0, 0
	for i := range ts {
		for ts[i].Sub(ts[j]) >= w {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}

func TestPacerRPMWindow(t *testing.T) {
	for _, tt := range []struct {
		rpm, n int
	}{
		{120, 500}, {7, 40}, {1, 5}, {6000, 20000},
	} {
		clk := newFakeClock()
		p := NewPacer(PacerOptions{Concurrency: 8, RPM: tt.rpm, Clock: clk})
		ts := starts(t, p, clk, tt.n, 100)
		if got := maxInWindow(ts, time.Minute); got > tt.rpm {
			t.Errorf("rpm %d: a 60 s window holds %d starts", tt.rpm, got)
		}
		// Not slower than the margin: n starts take about (n-1)/rate.
		want := time.Duration(float64(tt.n-1) / (float64(tt.rpm) / 60 * rateMargin) * float64(time.Second))
		if got := ts[len(ts)-1].Sub(ts[0]); got < want-time.Millisecond || got > want+want/100+time.Millisecond {
			t.Errorf("rpm %d: %d starts took %v, want about %v", tt.rpm, tt.n, got, want)
		}
	}
}

func TestPacerTPM(t *testing.T) {
	clk := newFakeClock()
	t0 := clk.Now()
	p := NewPacer(PacerOptions{TPM: 6000, Clock: clk}) // 100 tokens/s, burst 600
	ts := starts(t, p, clk, 4, 300)
	want := []time.Duration{0, 0, 3 * time.Second, 6 * time.Second}
	for i, w := range want {
		if got := ts[i].Sub(t0); got != w {
			t.Fatalf("start %d at %v, want %v", i, got, w)
		}
	}
	// A request that used 500 tokens more than estimated delays the next one by 5 s.
	p.Settle(300, 800)
	next := starts(t, p, clk, 1, 300)[0]
	if got := next.Sub(t0); got != 6*time.Second+8*time.Second {
		t.Fatalf("after an overrun the next start is at %v, want 14s", got)
	}
	// An estimate above the burst waits for a full bucket, not forever.
	big := starts(t, p, clk, 1, 1_000_000)[0]
	if got := big.Sub(next); got != 6*time.Second {
		t.Fatalf("oversized request waited %v, want 6s", got)
	}
}

func TestPacerConcurrency(t *testing.T) {
	p := NewPacer(PacerOptions{Concurrency: 2})
	ctx := context.Background()
	for range 2 {
		if err := p.Acquire(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := p.Acquire(short, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("third acquire: %v", err)
	}
	p.Release()
	if err := p.Acquire(ctx, 1); err != nil {
		t.Fatalf("acquire after a release: %v", err)
	}
	p.Release()
	p.Release()
	if p.Peak() != 2 || p.InFlight() != 0 || p.Limit() != 2 {
		t.Fatalf("peak %d in flight %d limit %d", p.Peak(), p.InFlight(), p.Limit())
	}
}

func TestPacerCancelWhileRateWaiting(t *testing.T) {
	p := NewPacer(PacerOptions{Concurrency: 1, RPM: 1}) // one start per minute (at 99%)
	ctx := context.Background()
	if err := p.Acquire(ctx, 1); err != nil {
		t.Fatal(err)
	}
	p.Release()
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := p.Acquire(short, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire while the bucket is empty: %v", err)
	}
	if p.InFlight() != 0 || len(p.slots) != 0 {
		t.Fatalf("cancelled acquire kept its slot: in flight %d, slots %d", p.InFlight(), len(p.slots))
	}
}

// TestPacerRealClockNotFaster checks, on the real clock, that concurrent requests never start
// faster than the RPM bucket allows.
func TestPacerRealClockNotFaster(t *testing.T) {
	p := NewPacer(PacerOptions{Concurrency: 4, RPM: 3000}) // 50/s → 20.2 ms apart
	var mu sync.Mutex
	var ts []time.Time
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				if err := p.Acquire(context.Background(), 1); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				ts = append(ts, time.Now())
				mu.Unlock()
				p.Release()
			}
		})
	}
	wg.Wait()
	first, last := ts[0], ts[0]
	for _, x := range ts {
		first, last = minTime(first, x), maxTime(last, x)
	}
	if min := 19 * 20 * time.Millisecond; last.Sub(first) < min {
		t.Fatalf("20 starts in %v, want at least %v", last.Sub(first), min)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
