package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
)

// stubOptions are the flags of llm-stub.
type stubOptions struct {
	addr     string
	faults   string
	badKinds string
	badTasks string
	opts     stub.Options
}

// validate reads the kind lists (the numeric flags are checked by checkFlags, flagRanges).
func (o *stubOptions) validate() error {
	var err error
	if o.opts.Faults, err = kindList("--faults", o.faults, stub.AllFaults()); err != nil {
		return err
	}
	if o.opts.BadKinds, err = kindList("--bad-kinds", o.badKinds, stub.AllBadKinds()); err != nil {
		return err
	}
	o.opts.BadTasks, err = kindList("--bad-tasks", o.badTasks, wire.Tasks())
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

func newLLMStubCmd(*cli) *cobra.Command {
	var o stubOptions
	cmd := &cobra.Command{
		Use:   "llm-stub",
		Short: "Serve the offline responder as an OpenAI-compatible API, with latency and faults",
		Long: `The stub serves POST /v1/chat/completions and /v1/embeddings from the offline responder until
interrupted, with --latency/--jitter and deterministic fault injection (--fault-rate, --seed,
--faults): 429s carry Retry-After (--retry-after), a timeout fault holds the request for --stall,
and no request faults more than --max-faults times in a row. --prefix-cache-block imitates a
provider's prompt cache: a chat answer's usage.prompt_tokens_details.cached_tokens is the longest
prefix of its json_schema schema and messages (in that order, as OpenAI caches them), in whole
blocks, that an earlier request of the same model sent, when it is at least --prefix-cache-min
tokens (tokens are the stub's measure, bytes ÷ 4; the schema is prompt, as OpenAI bills it). GET /stats
returns {calls, prompt_tokens, cached_prompt_tokens, prefix_shared_tokens (cached with no
minimum), completion_tokens, faults, faults_by_kind, max_in_flight, answered, repeated,
calls_per_minute, max_calls_in_window} and the batch counters.

It also serves the Files and Batch APIs (POST /v1/files, GET /v1/files/{id}[/content], POST and
GET /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/cancel) for llm.mode: batch: a
batch ends --batch-delay after its creation with the endpoints' answers, --batch-fail-rate of
its requests as error lines, --batch-expire-rate of the batches expired with about half of their
requests undone, --batch-invalid-rate of its output lines cut in half; the stub counts the
submissions of every request. Vanishing state: --batch-lose-rate of the batches are forgotten
after --batch-lose-after polls (404, as after a gateway change), --batch-failed-rate end failed
with a reason, --batch-lose-files-rate lose their output and error files.

Its answers are a baseline for the mechanics (pacing, retries, cache, cost), not for extraction
quality. Point a job at it with the --set flags it prints when it starts (see the example).`,
		Example: `  backfill llm-stub --latency 50ms --fault-rate 0.1 &
  backfill run jobs/examples/demo.yaml --checkpoint .backfill/stub.db ` + stubSets("http://127.0.0.1:8089/v1"),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return done(usageError("llm-stub", err))
			}
			return done(o.serve(cmd.Context()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8089", "listen `ADDRESS` (host:port; port 0 picks a free one)")
	f.DurationVar(&o.opts.Latency, "latency", 0, "added to every answer (`DURATION`, e.g. 50ms)")
	f.DurationVar(&o.opts.Jitter, "jitter", 0, "latency varies by up to ± this `DURATION`")
	f.Float64Var(&o.opts.FaultRate, "fault-rate", 0, "share `F` of requests answered with a fault (0..1)")
	f.Uint64Var(&o.opts.Seed, "seed", 1, "fault pattern seed `N`")
	f.StringVar(&o.faults, "faults", "", "fault `KINDS`, comma-separated (default all: "+strings.Join(stub.AllFaults(), ",")+")")
	f.IntVar(&o.opts.MaxFaults, "max-faults", 0, "most faults in a row per logical request, `N` (default 2; -1: no cap)")
	f.DurationVar(&o.opts.RetryAfter, "retry-after", time.Second, "Retry-After sent with a 429 (`DURATION`)")
	f.DurationVar(&o.opts.Stall, "stall", 30*time.Second, "how long a timeout fault holds a request before a 504 (`DURATION`; set llm.timeout_seconds below it to see client timeouts)")
	f.DurationVar(&o.opts.Window, "window", time.Minute, "sliding window of max_calls_in_window in /stats (`DURATION`)")
	f.IntVar(&o.opts.Dims, "dims", 0, "embedding size `N` when a request names none (default 256)")
	f.Float64Var(&o.opts.BadRate, "bad-rate", 0, "share `F` of chat requests answered badly on every attempt, like a weak model (0..1)")
	f.StringVar(&o.badKinds, "bad-kinds", "", "bad-answer `KINDS`, comma-separated (default all: "+strings.Join(stub.AllBadKinds(), ",")+")")
	f.StringVar(&o.badTasks, "bad-tasks", "", "`TASKS` that get bad answers, comma-separated (default all: "+strings.Join(wire.Tasks(), ",")+")")
	f.DurationVar(&o.opts.BatchDelay, "batch-delay", 0, "batches end this `DURATION` after their creation (at the first poll after it)")
	f.Float64Var(&o.opts.BatchFailRate, "batch-fail-rate", 0, "share `F` of batch requests answered by an error line (0..1)")
	f.Float64Var(&o.opts.BatchExpireRate, "batch-expire-rate", 0, "share `F` of batches that expire with about half of their requests undone (0..1)")
	f.Float64Var(&o.opts.BatchInvalidRate, "batch-invalid-rate", 0, "share `F` of batch output lines written unreadable (0..1)")
	f.IntVar(&o.opts.BatchMaxRequests, "batch-max-requests", 0, "most requests `N` in a batch file (default 50000)")
	f.Int64Var(&o.opts.BatchMaxBytes, "batch-max-bytes", 0, "largest batch file in bytes, `N` (default 200000000)")
	f.Float64Var(&o.opts.BatchLoseRate, "batch-lose-rate", 0, "share `F` of batches the stub forgets after --batch-lose-after polls, as after a gateway change (0..1)")
	f.IntVar(&o.opts.BatchLoseAfter, "batch-lose-after", 1, "polls `N` a batch the stub will lose answers (in progress) before it is gone")
	f.Float64Var(&o.opts.BatchFailedRate, "batch-failed-rate", 0, "share `F` of batches that end failed, with a reason in their errors and every request undone (0..1)")
	f.Float64Var(&o.opts.BatchLoseFilesRate, "batch-lose-files-rate", 0, "share `F` of batches whose output and error files are gone when read (0..1)")
	f.IntVar(&o.opts.PrefixCache.Block, "prefix-cache-block", 0, "imitate a provider's prompt cache in blocks of `N` tokens (0: off; OpenAI's rule is 128)")
	f.IntVar(&o.opts.PrefixCache.Min, "prefix-cache-min", 1024, "the shortest prefix the imitated prompt cache serves, `N` tokens (OpenAI's rule is 1024)")
	_ = cmd.RegisterFlagCompletionFunc("faults", fixedCompletion(stub.AllFaults()...))
	_ = cmd.RegisterFlagCompletionFunc("bad-kinds", fixedCompletion(stub.AllBadKinds()...))
	_ = cmd.RegisterFlagCompletionFunc("bad-tasks", fixedCompletion(wire.Tasks()...))
	return cmd
}

// stubSets are the --set flags that point a job's LLM and embedder at a stub serving baseURL.
func stubSets(baseURL string) string {
	return "--set llm.provider=openai --set llm.base_url=" + baseURL + " --set llm.model=stub " +
		"--set embedder.provider=openai --set embedder.base_url=" + baseURL + " --set embedder.model=stub"
}

// serve serves the stub until ctx is cancelled.
func (o *stubOptions) serve(ctx context.Context) int {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fail(ctx, fmt.Errorf("listening on %s: %w", o.addr, err))
	}
	srv := &http.Server{Handler: stub.New(o.opts), ReadHeaderTimeout: 10 * time.Second}
	base := "http://" + ln.Addr().String() + "/v1"
	fmt.Fprintf(os.Stderr, "llm-stub: serving %s; point a job at it with\n  %s\n", base, stubSets(base))
	slog.Info("llm-stub listening", "base_url", base, "latency", o.opts.Latency.String(),
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
