package evalgraphs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

var (
	once     sync.Once
	bin      string
	root     string
	buildErr error
)

// binary builds backfill once for the package.
func binary(t *testing.T) (string, string) {
	t.Helper()
	once.Do(func() {
		if root, buildErr = harness.RepoRoot("."); buildErr != nil {
			return
		}
		dir, err := os.MkdirTemp("", "backfill-evalgraphs-")
		if err != nil {
			buildErr = err
			return
		}
		bin, buildErr = harness.Build(t.Context(), root, dir)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return bin, root
}

// servers holds the shared Neo4j and FalkorDB exclusively and empties both.
func servers(t *testing.T) (neo, falkor string) {
	t.Helper()
	neo = testenv.Neo4jExclusive(t)
	falkor = testenv.FalkorDBExclusive(t)
	if err := harness.ClearNeo4j(t.Context(), neo); err != nil {
		t.Fatal(err)
	}
	if err := harness.ClearFalkorDB(t.Context(), falkor); err != nil {
		t.Fatal(err)
	}
	return neo, falkor
}

// backfill runs the binary in dir and fails t unless it exits 0; it returns stdout.
func backfill(t *testing.T, dir string, args ...string) string {
	t.Helper()
	b, _ := binary(t)
	res, err := harness.Run(t.Context(), b, args, harness.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("backfill %s: exit %d\n%s%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

// load runs job into its checkpoint, then loads that checkpoint into Neo4j and into FalkorDB
// (the sink changed, so only the load stage runs again), and exports it as Parquet.
func load(t *testing.T, dir, job, checkpoint, export, neo, falkor string) {
	t.Helper()
	backfill(t, dir, "run", job, "--checkpoint", checkpoint, "--set", "sink.kind=neo4j", "--set", "sink.uri="+neo)
	backfill(t, dir, "run", job, "--checkpoint", checkpoint, "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor)
	backfill(t, dir, "export", job, "--checkpoint", checkpoint, "--format", "parquet", "--out", export)
}

// report is the part of an eval --json report the tests compare.
type report struct {
	Graph         string           `json:"graph"`
	Kind          string           `json:"kind"`
	Health        map[string]any   `json:"health"`
	HealthByGroup []map[string]any `json:"health_by_group"`
	Gold          json.RawMessage  `json:"gold"`
	Retrieval     json.RawMessage  `json:"retrieval"`
}

// eval runs eval of graph with args and reads its --json report.
func eval(t *testing.T, dir, graph string, args ...string) report {
	t.Helper()
	path := filepath.Join(t.TempDir(), "eval.json")
	backfill(t, dir, append([]string{"eval", graph, "--json", path}, args...)...)
	var r report
	harness.ReadJSON(t, path, &r)
	return r
}

// health is a report's health without the checks that need the version log, which only a
// checkpoint has.
func health(r report) string {
	strip := func(h map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range h {
			if k != "closed_by_stranger" && k != "closures_unattributed" {
				out[k] = v
			}
		}
		return out
	}
	byGroup := make([]map[string]any, len(r.HealthByGroup))
	for i, h := range r.HealthByGroup {
		byGroup[i] = strip(h)
	}
	b, _ := json.Marshal([]any{strip(r.Health), byGroup})
	return string(b)
}

// same fails t when got's part differs from want's.
func same(t *testing.T, what, graph string, got, want []byte) {
	t.Helper()
	if string(got) != string(want) {
		t.Errorf("%s of %s differs from the checkpoint's:\n got %.2000s\nwant %.2000s", what, graph, got, want)
	}
}

// TestGoldScoresTheSameOnEveryGraph loads the demo into Neo4j and FalkorDB with backfill and
// scores every graph of it against the demo's gold file: the checkpoint, the Parquet export, the
// Neo4j graph by its Bolt URI alone and with the job, the FalkorDB graphs by their redis:// URI
// alone and with the job. Every gold report, episode counts and bootstrap interval included,
// and every health figure but the version log's are the checkpoint's, and each report names
// the kind of graph read. Before the loader wrote record keys, the Bolt graph failed the gold
// file ("gold episodes[27] (group acme, crm-1001) is not in the graph") and redis:// was read
// as a job file. diff finds no change between the checkpoint and either database, and says
// that a database graph records no runs.
func TestGoldScoresTheSameOnEveryGraph(t *testing.T) {
	neo, falkor := servers(t)
	_, dir := binary(t)
	tmp := t.TempDir()
	job, checkpoint, export := "jobs/examples/demo.yaml", filepath.Join(tmp, "demo.db"), filepath.Join(tmp, "export")
	load(t, dir, job, checkpoint, export, neo, falkor)
	gold := []string{"--gold", "examples/gold/demo.yaml"}
	want := eval(t, dir, job+"@"+checkpoint, gold...)
	if want.Kind != "checkpoint" || len(want.Gold) < 100 {
		t.Fatalf("the checkpoint's report: kind %q, gold %s", want.Kind, want.Gold)
	}
	for _, c := range []struct{ graph, kind string }{
		{export, "Parquet export"},
		{neo, "Neo4j graph"},
		{job + "@" + neo, "Neo4j graph"},
		{falkor, "FalkorDB graph"},
		{job + "@" + falkor, "FalkorDB graph"},
	} {
		sameGold(t, dir, c.graph, c.kind, want, gold...)
	}
	noChange(t, dir, job+"@"+checkpoint, neo, "Neo4j graph")
	noChange(t, dir, job+"@"+checkpoint, falkor, "FalkorDB graph")
	if out := backfill(t, dir, "diff", neo, falkor); !strings.Contains(out, "no changes in 6 groups") {
		t.Errorf("diff of the Neo4j and FalkorDB graphs:\n%s", out)
	}
}

// sameGold requires eval of graph with args to name its kind and give want's gold report and
// health (but the version log's checks).
func sameGold(t *testing.T, dir, graph, kind string, want report, args ...string) {
	t.Helper()
	got := eval(t, dir, graph, args...)
	if got.Kind != kind || !strings.HasPrefix(got.Graph, kind+" ") {
		t.Errorf("eval %s: graph %q of kind %q, want %s", graph, got.Graph, got.Kind, kind)
	}
	same(t, "the gold report", graph, got.Gold, want.Gold)
	same(t, "the health", graph, []byte(health(got)), []byte(health(want)))
}

// noChange requires diff of the checkpoint a and the database graph b loaded from it to find
// no change in the demo's 6 groups, name b's kind and say its runs are not compared.
func noChange(t *testing.T, dir, a, b, kind string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "diff.json")
	out := backfill(t, dir, "diff", a, b, "--json", path)
	var d struct {
		Report struct {
			Groups        int    `json:"groups"`
			GroupsChanged int    `json:"groups_changed"`
			B             string `json:"b"`
			KindB         string `json:"kind_b"`
		} `json:"report"`
	}
	harness.ReadJSON(t, path, &d)
	if r := d.Report; r.Groups != 6 || r.GroupsChanged != 0 || r.KindB != kind || !strings.HasPrefix(r.B, kind+" ") {
		t.Errorf("diff of the checkpoint and the %s: %+v, want 6 groups, none changed\n%s", kind, r, out)
	}
	for _, line := range []string{"  no changes in 6 groups\n", "llm B: not compared: a " + kind + " records no runs"} {
		if !strings.Contains(out, line) {
			t.Errorf("diff of the checkpoint and the %s does not say %q:\n%s", kind, line, out)
		}
	}
}

// TestDatasetScoresTheSameOnEveryGraph runs testdata/locomo.json (LoCoMo's format: two
// conversations and their questions; two turns of one session say the same words, so only the
// order of a session's turns decides which one BM25 ranks first) through the offline responder,
// loads it into Neo4j and FalkorDB and scores retrieval on it with --dataset locomo, the job
// with its checkpoint, its export, the Neo4j graph and the FalkorDB graphs: every retrieval
// report, question by question, is the checkpoint's. Before the loader wrote each episode's
// seq, the database graphs ordered the session's turns by uuid and the tied question missed
// its evidence at k 1.
func TestDatasetScoresTheSameOnEveryGraph(t *testing.T) {
	neo, falkor := servers(t)
	_, root := binary(t)
	dir := t.TempDir()
	data := filepath.Join(root, "tests", "evalgraphs", "testdata", "locomo.json")
	job := filepath.Join(dir, "job.yaml")
	text := fmt.Sprintf("name: evalgraphs\nrecord_time: reference\nsources:\n  - path: %s\n    format: locomo\n"+
		"llm: {provider: offline}\nembedder: {provider: offline}\n", data)
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	checkpoint, export := filepath.Join(dir, "job.db"), filepath.Join(dir, "export")
	load(t, dir, job, checkpoint, export, neo, falkor)
	args := []string{"--dataset", "locomo", data, "--k", "1,2,5"}
	want := eval(t, dir, job+"@"+checkpoint, args...)
	var rt struct {
		Ks              []int `json:"k"`
		EvidenceMissing int   `json:"evidence_keys_missing"`
	}
	if err := json.Unmarshal(want.Retrieval, &rt); err != nil || len(rt.Ks) != 3 || rt.EvidenceMissing != 0 {
		t.Fatalf("the checkpoint's retrieval report (%v): %s", err, want.Retrieval)
	}
	for _, graph := range []string{export, neo, falkor} {
		got := eval(t, dir, job+"@"+graph, args...)
		same(t, "the retrieval report", graph, got.Retrieval, want.Retrieval)
		same(t, "the health", graph, []byte(health(got)), []byte(health(want)))
	}
}
