package badinput

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/loaders"
)

// readOutcome is what loaders.Read made of one file: rows, an error, or a panic with the
// first module frame under it.
type readOutcome struct {
	rows     int
	err      error
	panicked any
	frame    string
}

// readGuarded reads a file with loaders.Read and recovers a panic.
func readGuarded(path string) (out readOutcome) {
	defer func() {
		if r := recover(); r != nil {
			out.panicked = r
			out.frame = firstModuleFrame(string(debug.Stack()))
		}
	}()
	out.err = loaders.Read(context.Background(), loaders.LocalFS{}, loaders.Spec{Path: path}, func(loaders.Result) error {
		out.rows++
		return nil
	})
	return out
}

// firstModuleFrame returns the first "github.com/…" function of a stack after its panic line.
func firstModuleFrame(stack string) string {
	_, after, _ := strings.Cut(stack, "panic(")
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "github.com/") {
			return l
		}
	}
	return ""
}

// TestParquetCorruptionSweep damages Parquet files at seeded random bytes. loaders.Read must
// never panic: parquet-go panics on some negative sizes, and loaders turns those into an error
// saying the input is corrupt; every such input must fail the run with that error.
func TestParquetCorruptionSweep(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(2026, 8))
	var panicking []string
	counts := map[string]int{}
	for _, name := range []string{"valid.parquet", "nulls.parquet", "timestamps.parquet"} {
		orig := corpus()[name]
		for trial := range 400 {
			b := append([]byte(nil), orig...)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
			p := filepath.Join(dir, fmt.Sprintf("%s-%03d.parquet", strings.TrimSuffix(name, ".parquet"), trial))
			writeFile(t, p, b)
			out := readGuarded(p)
			switch {
			case out.panicked != nil:
				counts["panic"]++
				t.Errorf("%s: loaders.Read panicked (%v) at %s", p, out.panicked, out.frame)
			case out.err != nil && strings.Contains(out.err.Error(), "the input is corrupt"):
				counts["decoder panic"]++
				panicking = append(panicking, p)
			case out.err != nil:
				counts["error"]++
				os.Remove(p)
			default:
				counts["read"]++
				os.Remove(p)
			}
		}
	}
	t.Logf("1,200 damaged files: %v", counts)
	if len(panicking) == 0 {
		t.Log("no mutation made parquet-go panic this time")
	}
	for _, p := range panicking[:min(len(panicking), 8)] {
		job, checkpoint := writeJob(t, dir, filepath.Base(p), "path: "+p, "")
		j, err := pipeline.Load(job, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = runner.Run(t.Context(), j, runner.Options{Checkpoint: checkpoint})
		if err == nil || !strings.Contains(err.Error(), "the input is corrupt") || !strings.Contains(err.Error(), filepath.Base(p)) {
			t.Errorf("%s: run error %v, want one saying the input is corrupt", p, err)
		}
		if errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
}
