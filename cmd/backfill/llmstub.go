package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/stub"
)

// stubOptions are the flags of llm-stub.
type stubOptions struct {
	addr   string
	faults string
	opts   stub.Options
}

func (o *stubOptions) validate() error {
	if o.opts.FaultRate < 0 || o.opts.FaultRate > 1 {
		return fmt.Errorf("--fault-rate %g is outside 0..1", o.opts.FaultRate)
	}
	if o.opts.Latency < 0 || o.opts.Jitter < 0 {
		return errors.New("--latency and --jitter must not be negative")
	}
	if o.faults != "" {
		known := map[string]bool{}
		for _, k := range stub.AllFaults() {
			known[k] = true
		}
		for _, k := range strings.Split(o.faults, ",") {
			if !known[k] {
				return fmt.Errorf("--faults: unknown kind %q (want %s)", k, strings.Join(stub.AllFaults(), ","))
			}
			o.opts.Faults = append(o.opts.Faults, k)
		}
	}
	return nil
}

// cmdLLMStub serves the offline responder with latency and fault injection until interrupted.
func cmdLLMStub(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("llm-stub", flag.ContinueOnError)
	var o stubOptions
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8089", "listen address")
	fs.DurationVar(&o.opts.Latency, "latency", 0, "added to every answer")
	fs.DurationVar(&o.opts.Jitter, "jitter", 0, "latency varies by up to ± this")
	fs.Float64Var(&o.opts.FaultRate, "fault-rate", 0, "share of requests answered with a fault (0..1)")
	fs.Uint64Var(&o.opts.Seed, "seed", 1, "fault pattern seed")
	fs.StringVar(&o.faults, "faults", "", "fault kinds, comma-separated (default all: "+strings.Join(stub.AllFaults(), ",")+")")
	fs.IntVar(&o.opts.MaxFaults, "max-faults", 0, "most faults in a row per logical request (default 2; -1: no cap)")
	fs.DurationVar(&o.opts.RetryAfter, "retry-after", time.Second, "Retry-After sent with a 429")
	fs.DurationVar(&o.opts.Stall, "stall", 30*time.Second, "how long a timeout fault holds a request before a 504 (set llm.timeout_seconds below it to see client timeouts)")
	fs.DurationVar(&o.opts.Window, "window", time.Minute, "sliding window of max_calls_in_window in /stats")
	fs.IntVar(&o.opts.Dims, "dims", 0, "embedding size when a request names none (default 256)")
	pos, err := parse(fs, args)
	if err == nil && len(pos) > 0 {
		err = fmt.Errorf("unexpected arguments %q", pos)
	}
	if err == nil {
		err = o.validate()
	}
	if err != nil {
		return usageError("llm-stub", err)
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fail(ctx, fmt.Errorf("listening on %s: %w", o.addr, err))
	}
	srv := &http.Server{Handler: stub.New(o.opts), ReadHeaderTimeout: 10 * time.Second}
	slog.Info("llm-stub listening", "base_url", "http://"+ln.Addr().String()+"/v1", "latency", o.opts.Latency.String(),
		"jitter", o.opts.Jitter.String(), "fault_rate", o.opts.FaultRate, "seed", o.opts.Seed)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fail(ctx, fmt.Errorf("serving: %w", err))
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	fmt.Fprintln(os.Stderr, "llm-stub: stopped")
	return exitOK
}
