package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// TelemetryResult is what exporting a run's traces and metrics costs (the telemetry step):
// LoCoMo through llm/stub, and its cached replay, each run with exporting off (no OTLP
// endpoint), on (traces and metrics over OTLP/HTTP to the collector of
// BACKFILL_OTELCOL_ENDPOINT on loopback) and metrics only (OTEL_TRACES_EXPORTER=none), in
// rotating order (off, all, metrics; all, metrics, off; …) so a drift in the machine's load
// hits every mode alike.
type TelemetryResult struct {
	Episodes    int            `json:"episodes"`
	LatencyMS   float64        `json:"latency_ms"`
	Concurrency int            `json:"concurrency"`
	Runs        []TelemetryRun `json:"runs"`
	Note        string         `json:"note,omitempty"`
}

// TelemetryRun is one run: its job (the stub run or the cached replay), what it exported, its
// wall and CPU seconds, the spans the collector received of it, and the machine's 1-minute load
// average when it started.
type TelemetryRun struct {
	Job        string  `json:"job"`    // "stub" or "replay"
	Export     string  `json:"export"` // exportOff, exportAll or exportMetrics
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	Spans      int     `json:"spans,omitempty"`
	Load1      float64 `json:"load1"`
}

// What a run exports.
const (
	exportOff     = "off"
	exportAll     = "traces and metrics"
	exportMetrics = "metrics only"
)

// exportModes in the order of the first round; each round starts one later.
var exportModes = []string{exportOff, exportAll, exportMetrics}

// telemetryRounds is how many runs of each job the step makes in every mode.
const telemetryRounds = 3

// benchTelemetry measures the export's cost (see TelemetryResult).
func benchTelemetry(ctx context.Context, bin, dir, dataset string, latency time.Duration, concurrency int) (*TelemetryResult, error) {
	endpoint, traces := os.Getenv("BACKFILL_OTELCOL_ENDPOINT"), os.Getenv("BACKFILL_OTELCOL_TRACES")
	r := &TelemetryResult{LatencyMS: float64(latency) / float64(time.Millisecond), Concurrency: concurrency}
	if endpoint == "" || traces == "" {
		r.Note = "not measured: BACKFILL_OTELCOL_* unset (scripts/otelcol.sh start)"
		return r, nil
	}
	s, err := harness.StartStub(stub.Options{Latency: latency}, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	src := fmt.Sprintf("path: %s\n    format: locomo", dataset)
	n := 0
	run := func(job, export, checkpoint string) error {
		n++
		p := filepath.Join(dir, fmt.Sprintf("telemetry-%d.yaml", n))
		if err := os.WriteFile(p, []byte(harness.StubJobYAML("bench-telemetry", checkpoint, src, s.URL, concurrency)), 0o644); err != nil {
			return err
		}
		id := runID()
		env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=", "OTEL_TRACES_EXPORTER=", "OTEL_METRICS_EXPORTER=",
			"OTEL_SERVICE_NAME=backfill-bench", "OTEL_RESOURCE_ATTRIBUTES=backfill.bench.run=" + id}
		if export != exportOff {
			env[0] = "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint
		}
		if export == exportMetrics {
			env[1] = "OTEL_TRACES_EXPORTER=none"
		}
		x := TelemetryRun{Job: job, Export: export, Load1: load1()}
		rep, res, err := runJob(ctx, bin, p, dir, harness.Options{Env: env})
		if err != nil {
			return err
		}
		x.Seconds, x.CPUSeconds = res.Elapsed.Seconds(), res.CPU.Seconds()
		r.Episodes = rep.Episodes
		if export == exportAll {
			if x.Spans, err = spansOfRun(traces, id); err != nil {
				return err
			}
		}
		r.Runs = append(r.Runs, x)
		return nil
	}
	// The stub runs: each on a fresh checkpoint. The first one's is the replay's source.
	var first string
	for i := range len(exportModes) * telemetryRounds {
		cp := filepath.Join(dir, fmt.Sprintf("telemetry-stub-%d.db", i))
		if first == "" {
			first = cp
		}
		if err := run("stub", exportMode(i), cp); err != nil {
			return r, err
		}
	}
	// The cached replays: each on a copy of the first checkpoint with every stage's output
	// removed and the LLM cache kept.
	for i := range len(exportModes) * telemetryRounds {
		cp := filepath.Join(dir, fmt.Sprintf("telemetry-replay-%d.db", i))
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := copyFile(first+suffix, cp+suffix); err != nil && !os.IsNotExist(err) {
				return r, err
			}
		}
		if err := resetStages(ctx, cp); err != nil {
			return r, err
		}
		if err := run("replay", exportMode(i), cp); err != nil {
			return r, err
		}
	}
	return r, nil
}

// exportMode is what run i of a series exports: round r runs the modes starting from the r-th.
func exportMode(i int) string {
	n := len(exportModes)
	return exportModes[(i%n+i/n)%n]
}

// runID is a random id that tells a run's telemetry from the others the collector received.
func runID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// spansOfRun counts the spans the collector wrote (OTLP JSON lines, one resource each as the
// SDK exports them) of the run with id.
func spansOfRun(path, id string) (int, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, root, err := countSpans(path, id)
		if err != nil || root || time.Now().After(deadline) {
			return n, err
		}
		time.Sleep(200 * time.Millisecond) // the file exporter writes within its flush interval
	}
}

// countSpans counts the spans of run id in the collector's file and whether its root span
// ("run …", the last to end) is there.
func countSpans(path, id string) (int, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 512<<20)
	n, root := 0, false
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `"`+id+`"`) {
			continue
		}
		n += strings.Count(line, `"spanId":`)
		root = root || strings.Contains(line, `"name":"run bench-telemetry"`)
	}
	return n, root, sc.Err()
}

// load1 is the 1-minute load average (0 when unknown).
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// telemetryOverhead is the median of a job's runs that exported export against the median of
// its runs that exported nothing, in wall and CPU seconds, as percentages.
func telemetryOverhead(runs []TelemetryRun, job, export string) (wall, cpu float64, ok bool) {
	var on, off, onCPU, offCPU []float64
	for _, r := range runs {
		switch {
		case r.Job != job:
		case r.Export == export:
			on, onCPU = append(on, r.Seconds), append(onCPU, r.CPUSeconds)
		case r.Export == exportOff:
			off, offCPU = append(off, r.Seconds), append(offCPU, r.CPUSeconds)
		}
	}
	if len(on) == 0 || len(off) == 0 {
		return 0, 0, false
	}
	return 100 * (median(on)/median(off) - 1), 100 * (median(onCPU)/median(offCPU) - 1), true
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
