package forget

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// badExtractions make the stub answer a share of the extraction requests badly on every
// attempt, so the failed-units file holds raw answers; seed 9 fails 3 extractions, one of them
// a cut answer about the planted string (a changed prompt may need another seed: the test
// says so when none of the failed answers holds the string).
var badExtractions = stub.Options{BadRate: 0.15, Seed: 9, BadTasks: extract.Tasks(extract.ModeCombined)}

// neo4jHits counts the string and list-of-string properties of the database holding s.
func neo4jHits(t *testing.T, uri, s string) int64 {
	t.Helper()
	n, err := harness.Neo4jHits(t.Context(), uri, s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestForgetLeavesNoTrace(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	if err := harness.ClearNeo4j(t.Context(), uri); err != nil {
		t.Fatal(err)
	}
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	llmStub, err := harness.StartStub(badExtractions, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { llmStub.Close() })
	rows := conversations()
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, rows, "")
	cpDir := filepath.Join(dir, "store")
	cp := filepath.Join(cpDir, "job.db")
	sink := fmt.Sprintf("sink: {kind: neo4j, uri: %q}", uri)
	job := writeJob(t, dir, "forget", cp, input, stubModels(llmStub.URL), sink, "")
	pq, cy := filepath.Join(dir, "parquet"), filepath.Join(dir, "cypherl")

	// The run: one row quarantined, some extractions failed (exit 3), the graph in Neo4j.
	mustExit(t, "run", backfill(t, bin, "run", job), 3)
	mustExit(t, "export parquet", backfill(t, bin, "export", job, "--out", pq), 0)
	mustExit(t, "export cypherl", backfill(t, bin, "export", job, "--format", "cypherl", "--dialect", "neo4j", "--out", cy), 0)
	before := exportRows(t, pq, false)

	// Where the string is before: the store, the quarantine and failed-units files, both
	// exports, the database; otherwise the checks after the forgetting could not fail.
	holding := filesHolding(t, planted, cpDir, pq, cy)
	for _, want := range []string{runner.FailedFile(cp), cp + ".quarantine.jsonl", filepath.Join(cy, "graph.cypherl")} {
		if !slices.Contains(holding, want) {
			t.Fatalf("before forgetting, %s does not hold %q (files holding it: %v): the test checks nothing there "+
				"(for the failed-units file: pick a badExtractions seed that fails one of Zora's extractions with a cut answer)", want, planted, holding)
		}
	}
	if !slices.ContainsFunc(holding, func(f string) bool { return strings.HasPrefix(f, cp) && (f == cp || f == cp+"-wal") }) {
		t.Fatalf("before forgetting, the store does not hold %q (files holding it: %v)", planted, holding)
	}
	if n := rowsHolding(before, planted); n < 5 {
		t.Fatalf("before forgetting, %d Parquet rows hold %q; want episodes, entities and facts", n, planted)
	}
	if n := neo4jHits(t, uri, planted); n < 5 {
		t.Fatalf("before forgetting, %d Neo4j properties hold %q; want episodes, entities and facts", n, planted)
	}

	res := backfill(t, bin, "forget", job, "--speaker", "Zora", "--load", "--report", filepath.Join(dir, "forget.json"))
	mustExit(t, "forget", res, 0, 3)
	for _, want := range []string{"forgotten", "episodes of 1 groups", "export\t" + pq + ": rewritten", "export\t" + cy + ": rewritten", "loaded now"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("forget's output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout+res.Stderr, planted) {
		t.Errorf("forget wrote what it forgot to its output (logs keep it):\n%s\n%s", res.Stdout, res.Stderr)
	}
	if files := filesHolding(t, planted, filepath.Join(dir, "forget.json")); len(files) > 0 {
		t.Errorf("forget's report holds %q", planted)
	}

	// No trace: no file of the job, no export, no row, no database property.
	if files := filesHolding(t, planted, cpDir, pq, cy); len(files) > 0 {
		t.Errorf("after forgetting, these files still hold %q: %v", planted, files)
	}
	after := exportRows(t, pq, false)
	if n := rowsHolding(after, planted); n > 0 {
		t.Errorf("after forgetting, %d Parquet rows hold %q", n, planted)
	}
	if n := neo4jHits(t, uri, planted); n > 0 {
		t.Errorf("after forgetting, %d Neo4j properties hold %q", n, planted)
	}

	// The other groups are as they were, byte for byte; the shared fact stays.
	for _, g := range []string{"g1", "g3"} {
		if d := harness.DiffLines(before[g], after[g]); d != "" {
			t.Errorf("group %s changed: %s", g, d)
		}
	}
	if !slices.ContainsFunc(after["g2"], func(r string) bool { return strings.Contains(r, "Milo works at Brightway") }) {
		t.Error("the fact Milo also supports (Milo works at Brightway) went with Zora's episodes")
	}
	if slices.ContainsFunc(after["g2"], func(r string) bool { return strings.HasPrefix(r, "episode ") && strings.Contains(r, `"Zora"`) }) {
		t.Error("an episode of Zora is left")
	}

	// The changed group equals a fresh run without Zora's rows: in the exports and in Neo4j,
	// where the fresh run's load over the forgotten graph changes nothing, but seq, the rows'
	// position in the source file (the fresh file lacks her rows, so later rows move up).
	graphAfter := withoutSeq(harness.Graph(t, uri))
	freshInput := filepath.Join(dir, "fresh.jsonl")
	writeRows(t, freshInput, rows, "Zora")
	freshJob := writeJob(t, dir, "fresh", filepath.Join(dir, "fresh", "fresh.db"), freshInput, stubModels(llmStub.URL), sink, "")
	mustExit(t, "fresh run", backfill(t, bin, "run", freshJob, "--report", filepath.Join(dir, "fresh.json")), 0, 3)
	freshPQ := filepath.Join(dir, "fresh-parquet")
	mustExit(t, "fresh export", backfill(t, bin, "export", freshJob, "--out", freshPQ), 0)
	if d := harness.DiffLines(exportRows(t, freshPQ, true)["g2"], exportRows(t, pq, true)["g2"]); d != "" {
		t.Errorf("group g2 after forgetting differs from a fresh run without Zora's rows: %s", d)
	}
	if d := harness.DiffLines(graphAfter, withoutSeq(harness.Graph(t, uri))); d != "" {
		t.Errorf("loading the fresh run's graph over the forgotten one changed Neo4j: %s", d)
	}
	if fr := readReport(t, filepath.Join(dir, "fresh.json")); fr.Load == nil || fr.Load.Deleted != 0 {
		t.Errorf("the fresh run's load: %+v; want it to remove nothing", fr.Load)
	}

	// A whole group: emptied in Neo4j by the load, gone from the exports and the store's
	// records (group ids, load records, run reports).
	mustExit(t, "forget a group", backfill(t, bin, "forget", job, "--group", "g3", "--load"), 0, 3)
	recs, err := harness.Neo4jQuery(t.Context(), uri, `MATCH (n {group_id: 'g3'}) RETURN count(n) AS n`)
	if err != nil {
		t.Fatal(err)
	}
	if n := recs[0]["n"].(int64); n != 0 {
		t.Errorf("%d nodes of the forgotten group g3 are left in Neo4j", n)
	}
	rowsNow := exportRows(t, pq, false)
	if len(rowsNow["g3"]) != 0 || harness.DiffLines(before["g1"], rowsNow["g1"]) != "" {
		t.Errorf("after forgetting g3 the export holds %d of its rows, or changed g1", len(rowsNow["g3"]))
	}
	store := harness.OpenStore(t, cp)
	defer store.Close()
	if _, ok, err := store.GroupOriginal(t.Context(), "g3"); err != nil || ok {
		t.Errorf("the store still records group g3 (%v)", err)
	}
	if _, ok, err := store.Fingerprint(t.Context(), "load", "g3"); err != nil || ok {
		t.Errorf("the store still has g3's load record (%v)", err)
	}
	runs, err := store.Runs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if strings.Contains(r.Report, `"g3"`) {
			t.Errorf("run report %d still names g3", r.Seq)
		}
	}
}

// seqProp is the seq property of an Episodic node in harness.Graph's lines.
var seqProp = regexp.MustCompile(` seq=int64:[0-9]+`)

// withoutSeq is the lines of a graph without the episodes' seq.
func withoutSeq(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = seqProp.ReplaceAllString(l, "")
	}
	return out
}
