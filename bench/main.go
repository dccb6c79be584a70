package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// options are the flags of the harness.
type options struct {
	out          string
	locomo       string
	latency      time.Duration
	concurrency  int
	sizes        []int
	ingestSizes  []int
	groupSize    int
	seed         uint64
	only         []string
	neo4j        string
	falkordb     string
	keepWorkDirs bool
	merge        bool
}

var steps = []string{"locomo", "replay", "eval", "tokens", "memory", "propagate", "bolt", "falkordb", "tickets", "parquet", "sync", "telemetry"}

func parseOptions(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&o.out, "out", "bench", "directory for results.json and results.md")
	fs.StringVar(&o.locomo, "locomo", os.Getenv("LOCOMO"), "LoCoMo JSON file (default ../shared/datasets/locomo/locomo10.json)")
	fs.DurationVar(&o.latency, "latency", 50*time.Millisecond, "stub latency of every answer")
	fs.IntVar(&o.concurrency, "concurrency", 10, "llm.concurrency of the stub run")
	sizes := fs.String("sizes", envOr("BENCH_SIZES", "100000,1000000"), "synthetic episodes through every stage")
	ingest := fs.String("ingest-sizes", envOr("BENCH_INGEST_SIZES", "100000,1000000"), "synthetic episodes through ingest alone")
	fs.IntVar(&o.groupSize, "group-size", 500, "episodes per synthetic group")
	fs.Uint64Var(&o.seed, "seed", 1, "synthetic input seed")
	only := fs.String("only", envOr("BENCH_ONLY", strings.Join(steps, ",")), "steps to run: "+strings.Join(steps, ","))
	fs.StringVar(&o.neo4j, "neo4j", "auto", "auto: start Neo4j with scripts/neo4j.sh when BACKFILL_NEO4J_URI is unset; off: skip")
	fs.StringVar(&o.falkordb, "falkordb", "auto", "auto: start FalkorDB with scripts/falkordb.sh when BACKFILL_FALKORDB_URI is unset; off: skip")
	fs.BoolVar(&o.keepWorkDirs, "keep", false, "keep the work directory (checkpoints, inputs)")
	fs.BoolVar(&o.merge, "merge", os.Getenv("BENCH_MERGE") == "1", "keep the results of the steps not run (and of a step that fails) from the existing results.json")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	var err error
	if o.sizes, err = ints(*sizes); err != nil {
		return o, fmt.Errorf("-sizes: %w", err)
	}
	if o.ingestSizes, err = ints(*ingest); err != nil {
		return o, fmt.Errorf("-ingest-sizes: %w", err)
	}
	for _, s := range strings.Split(*only, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !slices.Contains(steps, s) {
			return o, fmt.Errorf("-only: unknown step %q", s)
		}
		o.only = append(o.only, s)
	}
	if o.latency <= 0 || o.concurrency < 1 || o.groupSize < 1 {
		return o, fmt.Errorf("-latency, -concurrency and -group-size must be positive")
	}
	return o, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func main() {
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run measures every selected step, saving the results after each.
func run(ctx context.Context, o options) error {
	root, err := harness.RepoRoot(".")
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "backfill-bench-")
	if err != nil {
		return fmt.Errorf("creating work directory: %w", err)
	}
	if o.keepWorkDirs {
		slog.Info("work directory kept", "dir", work)
	} else {
		defer os.RemoveAll(work)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", o.out, err)
	}
	bin, err := harness.Build(ctx, root, work)
	if err != nil {
		return err
	}
	res := &Results{}
	if o.merge {
		if res, err = readResults(o.out); err != nil {
			return err
		}
	}
	res.Machine = Machine{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), CPUs: runtime.NumCPU(),
		GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if res.Measured == nil {
		res.Measured = map[string]string{}
	}
	b := &bencher{o: o, root: root, work: work, bin: bin, res: res}
	for _, s := range o.only {
		slog.Info("bench step starting", "step", s)
		start := time.Now()
		if err := res.measure(s, start, func() error { return b.step(ctx, s) }); err != nil {
			slog.Error("bench step failed; its earlier result, if any, is kept", "step", s, "err", err)
		}
		slog.Info("bench step finished", "step", s, "seconds", fmt.Sprintf("%.1f", time.Since(start).Seconds()))
		if err := res.write(o.out); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if err := res.write(o.out); err != nil {
		return err
	}
	slog.Info("results written", "json", o.out+"/results.json", "table", o.out+"/results.md")
	return nil
}
