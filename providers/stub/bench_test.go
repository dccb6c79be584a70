package stub

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

// drive sends calls distinct name_community calls through one client with the given pacer
// settings against a stub with the given latency, and returns the elapsed time and the stats.
func drive(b *testing.B, calls int, pacer pacing.PacerOptions, stub Options) (time.Duration, Stats) {
	b.Helper()
	s := New(stub)
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := llm.NewClient(llm.Options{BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini", Pacer: pacing.NewPacer(pacer)}, srv.Client(), nil, nil)
	jobs := make(chan int)
	var wg sync.WaitGroup
	begin := time.Now()
	for range pacer.Concurrency * 2 { // more callers than slots: the pacer is the bound
		wg.Go(func() {
			for i := range jobs {
				in := wire.NameInput{Summary: fmt.Sprintf("Group %d: Alice and Bob play chess on Sundays.", i)}
				if err := c.Call(context.Background(), "community", wire.TaskNameCommunity, in, nil); err != nil {
					b.Error(err)
				}
			}
		})
	}
	for i := range calls {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return time.Since(begin), s.Stats()
}

// BenchmarkThroughput: llm.concurrency=8 against a stub latency of 200 ms. The limit is
// 8 / 0.2 s = 40 calls/s; calls/s should be within 10% of it and max_in_flight ≤ 8.
func BenchmarkThroughput(b *testing.B) {
	for b.Loop() {
		d, st := drive(b, 200, pacing.PacerOptions{Concurrency: 8}, Options{Latency: 200 * time.Millisecond})
		rate := float64(st.Calls) / d.Seconds()
		b.ReportMetric(rate, "calls/s")
		b.ReportMetric(100*rate/40, "%of-limit")
		b.ReportMetric(float64(st.MaxInFlight), "max_in_flight")
		if st.MaxInFlight > 8 {
			b.Fatalf("stub saw %d in flight", st.MaxInFlight)
		}
	}
}

// BenchmarkRPMScaled: llm.rpm=1200 with 8 in flight, measured over the stub's sliding window
// of 6 s (a tenth of a minute, so at most 120 calls may start in it).
func BenchmarkRPMScaled(b *testing.B) {
	for b.Loop() {
		d, st := drive(b, 150, pacing.PacerOptions{Concurrency: 8, RPM: 1200},
			Options{Latency: 200 * time.Millisecond, Window: 6 * time.Second})
		b.ReportMetric(float64(st.MaxCallsInWindow), "max_calls/6s")
		b.ReportMetric(float64(st.Calls)/d.Seconds()*60, "calls/min")
		if st.MaxCallsInWindow > 120 {
			b.Fatalf("%d calls in a 6 s window at rpm 1200", st.MaxCallsInWindow)
		}
	}
}

// BenchmarkRPM120 is the full-scale check, llm.rpm=120 over a 60 s window; it takes about
// 75 s and runs only with BACKFILL_BENCH_LONG=1.
func BenchmarkRPM120(b *testing.B) {
	if os.Getenv("BACKFILL_BENCH_LONG") == "" {
		b.Skip("set BACKFILL_BENCH_LONG=1 to run (about 75 s)")
	}
	for b.Loop() {
		d, st := drive(b, 150, pacing.PacerOptions{Concurrency: 8, RPM: 120}, Options{Latency: 200 * time.Millisecond})
		b.ReportMetric(float64(st.MaxCallsInWindow), "max_calls/60s")
		b.ReportMetric(float64(st.Calls)/d.Seconds()*60, "calls/min")
		if st.MaxCallsInWindow > 120 {
			b.Fatalf("%d calls in a 60 s window at rpm 120", st.MaxCallsInWindow)
		}
	}
}
