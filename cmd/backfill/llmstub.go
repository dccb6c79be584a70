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
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/stub"
)

// stubOptions are the flags of llm-stub.
type stubOptions struct {
	addr     string
	faults   string
	badKinds string
	badTasks string
	opts     stub.Options
}

func (o *stubOptions) validate() error {
	if o.opts.FaultRate < 0 || o.opts.FaultRate > 1 {
		return fmt.Errorf("--fault-rate %g is outside 0..1", o.opts.FaultRate)
	}
	if o.opts.Latency < 0 || o.opts.Jitter < 0 {
		return errors.New("--latency and --jitter must not be negative")
	}
	for _, r := range []struct {
		flag string
		v    float64
	}{{"--bad-rate", o.opts.BadRate}, {"--batch-fail-rate", o.opts.BatchFailRate}, {"--batch-expire-rate", o.opts.BatchExpireRate},
		{"--batch-invalid-rate", o.opts.BatchInvalidRate}} {
		if r.v < 0 || r.v > 1 {
			return fmt.Errorf("%s %g is outside 0..1", r.flag, r.v)
		}
	}
	if o.opts.BatchDelay < 0 || o.opts.BatchMaxRequests < 0 || o.opts.BatchMaxBytes < 0 {
		return errors.New("--batch-delay, --batch-max-requests and --batch-max-bytes must not be negative")
	}
	var err error
	if o.opts.Faults, err = kindList("--faults", o.faults, stub.AllFaults()); err != nil {
		return err
	}
	if o.opts.BadKinds, err = kindList("--bad-kinds", o.badKinds, stub.AllBadKinds()); err != nil {
		return err
	}
	o.opts.BadTasks, err = kindList("--bad-tasks", o.badTasks, llm.Tasks())
	return err
}

// kindList splits a comma-separated flag value whose items must be among known ("" is none).
func kindList(flag, value string, known []string) ([]string, error) {
	if value == "" {
		return nil, nil
	}
	var out []string
	for _, k := range strings.Split(value, ",") {
		if !slices.Contains(known, k) {
			return nil, fmt.Errorf("%s: unknown kind %q (want %s)", flag, k, strings.Join(known, ","))
		}
		out = append(out, k)
	}
	return out, nil
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
	fs.Float64Var(&o.opts.BadRate, "bad-rate", 0, "share of chat requests answered badly on every attempt, like a weak model (0..1)")
	fs.StringVar(&o.badKinds, "bad-kinds", "", "bad-answer kinds, comma-separated (default all: "+strings.Join(stub.AllBadKinds(), ",")+")")
	fs.StringVar(&o.badTasks, "bad-tasks", "", "tasks that get bad answers, comma-separated (default all)")
	fs.DurationVar(&o.opts.BatchDelay, "batch-delay", 0, "batches end this long after their creation (at the first poll after it)")
	fs.Float64Var(&o.opts.BatchFailRate, "batch-fail-rate", 0, "share of batch requests answered by an error line (0..1)")
	fs.Float64Var(&o.opts.BatchExpireRate, "batch-expire-rate", 0, "share of batches that expire with about half of their requests undone (0..1)")
	fs.Float64Var(&o.opts.BatchInvalidRate, "batch-invalid-rate", 0, "share of batch output lines written unreadable (0..1)")
	fs.IntVar(&o.opts.BatchMaxRequests, "batch-max-requests", 0, "most requests in a batch file (default 50000)")
	fs.Int64Var(&o.opts.BatchMaxBytes, "batch-max-bytes", 0, "largest batch file in bytes (default 200000000)")
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
		"jitter", o.opts.Jitter.String(), "fault_rate", o.opts.FaultRate, "bad_rate", o.opts.BadRate, "seed", o.opts.Seed,
		"batch_delay", o.opts.BatchDelay.String())
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
