package main

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/stages"
)

// TestWatchSignalsKeepsBackToBackSignals: two signals that arrive before the watcher reads
// either (a double Ctrl-C on a loaded machine) are both counted: the first cancels, the second
// closes the abort channel.
func TestWatchSignalsKeepsBackToBackSignals(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	sigs <- os.Interrupt
	sigs <- syscall.SIGTERM
	soft, cancel := context.WithCancel(context.Background())
	second := make(chan struct{})
	go watchSignals(sigs, cancel, second)
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the second signal was lost")
	}
	if soft.Err() == nil {
		t.Error("the first signal did not cancel the soft context")
	}
}

// TestWatchSignalsOneSignal: one signal cancels and leaves the abort channel open.
func TestWatchSignalsOneSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	sigs <- os.Interrupt
	soft, cancel := context.WithCancel(context.Background())
	second := make(chan struct{})
	go watchSignals(sigs, cancel, second)
	<-soft.Done()
	select {
	case <-second:
		t.Error("one signal closed the abort channel")
	case <-time.After(100 * time.Millisecond):
	}
}

// TestWatchSignalsRemembersTheFirst: the first signal is kept, so an interrupted command exits
// 143 after SIGTERM (what Kubernetes and AWS Batch send) and 130 after SIGINT.
func TestWatchSignalsRemembersTheFirst(t *testing.T) {
	for _, tc := range []struct { // SIGINT last: the remembered signal stays the default's
		sig  os.Signal
		code int
	}{{syscall.SIGTERM, exitTerminated}, {os.Interrupt, exitInterrupted}} {
		sig, code := tc.sig, tc.code
		sigs := make(chan os.Signal, 2)
		sigs <- sig
		soft, cancel := context.WithCancel(context.Background())
		go watchSignals(sigs, cancel, make(chan struct{}))
		<-soft.Done()
		if got := fail(soft, stages.ErrInterrupted); got != code {
			t.Errorf("after %v: exit %d, want %d", sig, got, code)
		}
	}
}
