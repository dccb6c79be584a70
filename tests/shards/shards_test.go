package shards

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// shardCount is the number of shard processes run at once.
const shardCount = 4

// jobYAML is the job: LoCoMo through the offline responder, loading Neo4j in small batches.
const jobYAML = `name: shards
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: locomo
llm: {provider: offline}
embedder: {provider: offline}
sink: {kind: neo4j, uri: %q, batch_size: 100}
`

// span is when a process ran its load stage, on the test's clock.
type span struct{ from, to time.Time }

// shardRun is one finished shard process.
type shardRun struct {
	res    harness.Result
	load   span
	groups int // groups its load stage wrote
}

func TestShardsAtOnceEqualOneRun(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dataset := testenv.LoCoMo(t, root)
	dir := t.TempDir()
	bin, err := harness.Build(t.Context(), root, dir)
	if err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, fmt.Appendf(nil, jobYAML, filepath.Join(dir, "one.db"), dataset, uri), 0o644); err != nil {
		t.Fatal(err)
	}

	// One unsharded run is the reference.
	clear(t, uri)
	one, err := harness.Run(t.Context(), bin, []string{"run", job}, harness.Options{})
	if err != nil || one.Code != 0 {
		t.Fatalf("unsharded run: exit %d, %v\n%s", one.Code, err, one.Stderr)
	}
	want := harness.Graph(t, uri)

	// Four shards at once, every stage: each process ingests the whole input, keeps its own
	// groups and loads them.
	clear(t, uri)
	runs := runShards(t, bin, job, dir)
	if d := harness.DiffLines(want, harness.Graph(t, uri)); d != "" {
		t.Fatalf("the graph of %d shards run at once differs from one run's: %s", shardCount, d)
	}
	t.Logf("all stages: %d shards, %d lines of graph; %s", shardCount, len(want), overlaps(runs))

	// Again with only the loads left (sink.reload), so the four loads surely overlap in time.
	clear(t, uri)
	runs = runShards(t, bin, job, dir, "--set", "sink.reload=true")
	if d := harness.DiffLines(want, harness.Graph(t, uri)); d != "" {
		t.Fatalf("the graph of %d shard loads run at once differs from one run's: %s", shardCount, d)
	}
	o := overlaps(runs)
	t.Logf("loads only: %s", o)
	if countOverlaps(runs) == 0 {
		t.Errorf("no two shard loads overlapped in time (%s); the test did not load concurrently", o)
	}
}

// runShards starts every shard of the job at once, each with its own checkpoint, waits for
// all and requires exit 0 and at least two shards with groups.
func runShards(t *testing.T, bin, job, dir string, extra ...string) []shardRun {
	t.Helper()
	runs := make([]shardRun, shardCount)
	errs := make([]error, shardCount)
	var wg sync.WaitGroup
	for i := range shardCount {
		wg.Go(func() {
			report := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			args := append([]string{"run", job, "--shard", fmt.Sprintf("%d/%d", i, shardCount),
				"--checkpoint", filepath.Join(dir, fmt.Sprintf("shard-%d.db", i)), "--report", report}, extra...)
			start := time.Now()
			res, err := harness.Run(t.Context(), bin, args, harness.Options{})
			runs[i], errs[i] = shardRun{res: res, load: loadSpan(start, res.Events)}, err
			if err == nil && res.Code == 0 {
				runs[i].groups, errs[i] = loadUnits(report)
			}
		})
	}
	wg.Wait()
	withGroups := 0
	for i, r := range runs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if r.res.Code != 0 {
			t.Fatalf("shard %d/%d: exit %d\n%s", i, shardCount, r.res.Code, r.res.Stderr)
		}
		if r.load.to.IsZero() {
			t.Fatalf("shard %d/%d did not log its load stage", i, shardCount)
		}
		if r.groups > 0 {
			withGroups++
		}
	}
	if withGroups < 2 {
		t.Fatalf("only %d of %d shards loaded groups; the test needs a spread", withGroups, shardCount)
	}
	return runs
}

// loadUnits reads the number of groups loaded from a run report.
func loadUnits(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var rep struct {
		Stages map[string]struct {
			Units int `json:"units"`
		} `json:"stages"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return rep.Stages["load"].Units, nil
}

// loadSpan is the load stage's span of a process started at start.
func loadSpan(start time.Time, evs []harness.Event) span {
	var s span
	for _, ev := range evs {
		if ev.Stage != "load" {
			continue
		}
		if ev.Finished {
			s.to = start.Add(ev.At)
		} else {
			s.from = start.Add(ev.At)
		}
	}
	return s
}

// countOverlaps counts the pairs of shards whose loads ran at the same time.
func countOverlaps(runs []shardRun) int {
	n := 0
	for i := range runs {
		for j := i + 1; j < len(runs); j++ {
			a, b := runs[i].load, runs[j].load
			if a.from.Before(b.to) && b.from.Before(a.to) {
				n++
			}
		}
	}
	return n
}

// overlaps describes the load spans relative to the first start.
func overlaps(runs []shardRun) string {
	var first time.Time
	for _, r := range runs {
		if first.IsZero() || r.load.from.Before(first) {
			first = r.load.from
		}
	}
	s := ""
	for i, r := range runs {
		s += fmt.Sprintf("shard %d: %d groups, load %s–%s; ", i, r.groups, r.load.from.Sub(first).Round(time.Millisecond), r.load.to.Sub(first).Round(time.Millisecond))
	}
	return s + fmt.Sprintf("%d overlapping pairs", countOverlaps(runs))
}

func clear(t *testing.T, uri string) {
	t.Helper()
	if err := harness.ClearNeo4j(t.Context(), uri); err != nil {
		t.Fatal(err)
	}
}
