package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	_ "time/tzdata" // job timezones work on machines without zoneinfo

	"github.com/tkgraph/backfill/internal/termtext"
	"github.com/tkgraph/backfill/jobs"
	"github.com/tkgraph/backfill/stages"
)

// Exit codes (docs/reference/commands.md, "Exit codes").
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitPartial     = 3   // finished with quarantined input, failed units or a budget stop
	exitInterrupted = 130 // after SIGINT
	exitTerminated  = 143 // after SIGTERM (128 + 15, as a shell reports it): what Kubernetes and AWS Batch send
)

// secondInterrupt closes at the process' second SIGINT/SIGTERM (see watchSignals).
var secondInterrupt = make(chan struct{})

// firstSignal is the process' first SIGINT/SIGTERM (nil before it): an interrupted command
// exits 143 after SIGTERM, 130 after SIGINT.
var firstSignal atomic.Value

// main runs the command line. The context given to the commands is cancelled at the first
// SIGINT/SIGTERM; run drains instead (see drain).
func main() {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	soft, cancel := context.WithCancel(context.Background())
	go watchSignals(sigs, cancel, secondInterrupt)
	code := execute(soft, &cli{out: os.Stdout, now: func() time.Time { return time.Now().UTC() }}, os.Args[1:])
	signal.Stop(sigs)
	os.Exit(code)
}

// watchSignals calls first at the first signal from sigs and closes second at the next. One
// channel, registered before the command starts and holding two signals, sees both: a second
// signal that follows the first closely (a double Ctrl-C on a loaded machine) is never lost
// between two registrations. A second signal sent before the runtime took the first still
// merges with it (the kernel and the Go runtime hold one pending signal of a kind); drain's
// warning ("interrupt again to abort them") shows when the next one counts.
func watchSignals(sigs <-chan os.Signal, first context.CancelFunc, second chan<- struct{}) {
	firstSignal.Store(<-sigs)
	first()
	<-sigs
	close(second)
}

// drain gives a command that drains the context and stop channel it runs with: stop closes at
// the first SIGINT/SIGTERM (soft is cancelled: units in flight finish and commit, nothing new
// starts) and hard is cancelled at the second (the units in flight abort). The watch starts here,
// once the command has checked its arguments, and finish ends it when the command returns, so a
// command that ends for any other reason never reports an interrupt.
func drain(soft context.Context) (hard context.Context, stop <-chan struct{}, finish func()) {
	hard, cancel := context.WithCancel(context.WithoutCancel(soft))
	finished := make(chan struct{})
	go func() {
		select {
		case <-soft.Done():
		case <-finished:
			return
		}
		select {
		case <-finished: // the command returned first
			return
		default:
		}
		slog.Warn("interrupted: finishing the units in flight; interrupt again to abort them")
		select {
		case <-secondInterrupt:
			cancel()
		case <-finished:
		}
	}()
	return hard, soft.Done(), func() { close(finished); cancel() }
}

// setLogger sets the default logger at BACKFILL_LOG_LEVEL (info when unset); another value than
// debug, info, warn or error (or a level offset such as warn+2) is a usage error.
func setLogger() error {
	var l slog.Level
	if v, ok := os.LookupEnv("BACKFILL_LOG_LEVEL"); ok && v != "" {
		if err := l.UnmarshalText([]byte(v)); err != nil {
			return fmt.Errorf("BACKFILL_LOG_LEVEL=%q: want debug, info, warn or error", v)
		}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})))
	return nil
}

// fail prints an error and returns the exit code for it: a --set that cannot apply is a usage
// error.
func fail(ctx context.Context, err error) int {
	if errors.Is(err, stages.ErrInterrupted) || errors.Is(err, context.Canceled) && ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "backfill: interrupted; run the same command again to resume")
		if sig, _ := firstSignal.Load().(os.Signal); sig == syscall.SIGTERM {
			return exitTerminated
		}
		return exitInterrupted
	}
	var usage *commandUsageError
	if errors.As(err, &usage) {
		return usageError(strings.TrimPrefix(usage.cmd.CommandPath(), "backfill "), usage.err)
	}
	var set *jobs.SetError
	if errors.As(err, &set) {
		fmt.Fprintf(os.Stderr, "backfill: %s\n", termtext.Message(err.Error()))
		return exitUsage
	}
	fmt.Fprintf(os.Stderr, "backfill: %s\n", termtext.Message(err.Error()))
	return exitFailed
}
