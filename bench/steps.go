package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tkgraph/backfill/internal/testenv"
)

// boltIterations is -benchtime of the Bolt benchmarks: a shared machine's noise averages out
// over a few loads.
const boltIterations = 3

// bencher carries what the steps share.
type bencher struct {
	o         options
	root      string
	work      string
	bin       string
	res       *Results
	locomoRun *locomoRun // the stub run, for the replay
}

// step runs one named step and stores its result.
func (b *bencher) step(ctx context.Context, name string) error {
	switch name {
	case "locomo":
		dataset, ok := testenv.LoCoMoPath(b.root, b.o.locomo)
		if !ok {
			return fmt.Errorf("%s, or -locomo", testenv.NoLoCoMo(dataset))
		}
		r, run, err := benchLoCoMo(ctx, b.bin, b.work, dataset, b.o.latency, b.o.concurrency)
		if err != nil {
			return err
		}
		b.res.LoCoMo, b.locomoRun = r, &run
	case "replay":
		if b.locomoRun == nil {
			return errors.New("needs the locomo step first")
		}
		r, err := benchReplay(ctx, b.bin, b.work, *b.locomoRun)
		if err != nil {
			return err
		}
		b.res.Replay = r
	case "eval":
		dataset, ok := testenv.LoCoMoPath(b.root, b.o.locomo)
		if !ok {
			return fmt.Errorf("%s, or -locomo", testenv.NoLoCoMo(dataset))
		}
		r, err := benchEval(ctx, b.bin, b.root, b.work, dataset)
		if err != nil {
			return err
		}
		b.res.Eval = r
	case "tokens":
		dataset, ok := testenv.LoCoMoPath(b.root, b.o.locomo)
		if !ok {
			return fmt.Errorf("%s, or -locomo", testenv.NoLoCoMo(dataset))
		}
		r, err := benchTokens(ctx, b.bin, b.root, b.work, dataset)
		b.res.Tokens = r
		return err
	case "memory":
		var errs []error
		for _, plan := range []bool{false, true} {
			sizes := b.o.sizes
			if plan {
				sizes = b.o.ingestSizes
			}
			for _, n := range sizes {
				slog.Info("memory run", "episodes", n, "ingest_only", plan)
				r, err := benchMemory(ctx, b.bin, b.work, n, b.o.groupSize, b.o.seed, plan)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				b.res.Memory = append(b.res.Memory, r)
				if err := b.res.write(b.o.out); err != nil {
					return err
				}
			}
		}
		return errors.Join(errs...)
	case "tickets":
		r, err := benchTickets(ctx, b.bin, b.work, b.root)
		b.res.Tickets = r
		return err
	case "parquet": // the arrow-go comparison compiles arrow-go only under its build tag
		g, err := runGoBench(ctx, b.root, "./loaders", "^BenchmarkParquetReaders$", 1, []string{"GOFLAGS=-tags=arrowbench"})
		if g != nil {
			g.Command = "GOFLAGS=-tags=arrowbench " + g.Command
		}
		if g != nil && len(g.Metrics) > 0 {
			g.Note = parquetNote
		}
		b.res.Parquet = g
		return err
	case "propagate":
		g, err := runGoBench(ctx, b.root, "./stages/community", "^BenchmarkPropagate1M$", 1, nil)
		b.res.Propagate = g
		return err
	case "sync":
		dataset, ok := testenv.LoCoMoPath(b.root, b.o.locomo)
		if !ok {
			return fmt.Errorf("%s, or -locomo", testenv.NoLoCoMo(dataset))
		}
		r, err := benchSync(ctx, b.bin, b.work, dataset, b.o.latency, b.o.concurrency)
		b.res.Sync = r
		return err
	case "telemetry":
		dataset, ok := testenv.LoCoMoPath(b.root, b.o.locomo)
		if !ok {
			return fmt.Errorf("%s, or -locomo", testenv.NoLoCoMo(dataset))
		}
		r, err := benchTelemetry(ctx, b.bin, b.work, dataset, b.o.latency, b.o.concurrency)
		b.res.Telemetry = r
		return err
	case "falkordb":
		uri, stop, why := falkordbServer.uri(ctx, b.root, b.o.falkordb)
		defer stop()
		if uri == "" {
			b.res.FalkorDB = &GoBench{Command: "go test -run '^$' -bench BenchmarkFalkorDBLoad ./sinks/graphdb", Note: why}
			return nil
		}
		env := []string{"BACKFILL_FALKORDB_URI=" + uri}
		c, err := runGoBench(ctx, b.root, "./sinks/graphdb", "^BenchmarkFalkorDBCeiling$", boltIterations, env)
		b.res.FalkorDBCeiling = c
		if err != nil {
			return err
		}
		g, err := runGoBench(ctx, b.root, "./sinks/graphdb", "^BenchmarkFalkorDBLoad$", boltIterations, env)
		b.res.FalkorDB = g
		return err
	case "bolt":
		uri, stop, why := neo4jServer.uri(ctx, b.root, b.o.neo4j)
		defer stop()
		if uri == "" {
			b.res.Bolt = &GoBench{Command: "go test -run '^$' -bench BenchmarkNeo4jLoad ./sinks/graphdb", Note: why}
			return nil
		}
		env := []string{"BACKFILL_NEO4J_URI=" + uri}
		c, err := runGoBench(ctx, b.root, "./sinks/graphdb", "^BenchmarkNeo4jCeiling$", boltIterations, env)
		b.res.BoltCeiling = c
		if err != nil {
			return err
		}
		g, err := runGoBench(ctx, b.root, "./sinks/graphdb", "^BenchmarkNeo4jLoad$", boltIterations, env)
		b.res.Bolt = g
		return err
	}
	return nil
}

// parquetNote states what the parquet step compares and the choice it supports (loaders/doc.go
// has the corpus results).
const parquetNote = "1M generated rows, 7 columns of which 4 are mapped, 10 row groups, snappy; " +
	"`parquet-go` and `arrow` read to episodes through the same row builder, `… decode` only decode " +
	"and convert the projected columns. peak-live-MiB is the live heap's peak above the start, sampled " +
	"every millisecond. One iteration on a shared machine, so the times carry its noise: over 6 " +
	"iterations neither reader was clearly faster, arrow-go allocated more bytes and held more live " +
	"heap, and both accepted or refused the same awkward inputs (loaders/doc.go), so the input reader " +
	"stays parquet-go."
