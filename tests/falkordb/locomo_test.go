package falkordb

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// jobYAML is LoCoMo through the offline responder; the sink comes from --set.
const jobYAML = `name: falkordb
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: locomo
llm: {provider: offline}
embedder: {provider: offline}
`

// report is the part of the run report (report.Report) the tests read.
type report struct {
	Stages map[string]struct {
		Units   int `json:"units"`
		Skipped int `json:"skipped"`
	} `json:"stages"`
	Load *struct {
		Groups  int            `json:"groups"`
		Nodes   int            `json:"nodes"`
		Edges   int            `json:"edges"`
		Retries int            `json:"retries"`
		Counts  map[string]int `json:"counts"`
	} `json:"load"`
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("parsing %s: %v", path, err)
	}
	return r
}

// setup builds backfill and writes the LoCoMo job (the first n conversations; 0: all).
func setup(t *testing.T, n int) (bin, dir, job string) {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dataset := testenv.LoCoMo(t, root)
	dir = t.TempDir()
	if n > 0 {
		sub := filepath.Join(dir, "locomo.json")
		if err := harness.FilterLoCoMo(dataset, sub, n); err != nil {
			t.Fatal(err)
		}
		dataset = sub
	}
	if bin, err = harness.Build(t.Context(), root, dir); err != nil {
		t.Fatal(err)
	}
	job = filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, fmt.Appendf(nil, jobYAML, filepath.Join(dir, "job.db"), dataset), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, dir, job
}

// run runs the job with args and the report at rep, failing t unless it exits 0.
func run(t *testing.T, bin, job, rep string, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), bin, append([]string{"run", job, "--report", rep}, args...), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("backfill run %v: exit %d\n%s", args, res.Code, res.Stderr)
	}
	return res
}

func TestLoCoMoLoadMatchesNeo4j(t *testing.T) {
	neo := testenv.Neo4jExclusive(t)
	falkor := testenv.FalkorDBExclusive(t)
	bin, dir, job := setup(t, 0)
	ctx := t.Context()
	if err := harness.ClearNeo4j(ctx, neo); err != nil {
		t.Fatal(err)
	}
	db, err := harness.DialFalkorDB(falkor)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Clear(ctx); err != nil {
		t.Fatal(err)
	}

	run(t, bin, job, filepath.Join(dir, "neo4j.json"), "--set", "sink.kind=neo4j", "--set", "sink.uri="+neo)
	neoRep := readReport(t, filepath.Join(dir, "neo4j.json"))
	// The same checkpoint into FalkorDB: the sink changed, so every group loads again.
	res := run(t, bin, job, filepath.Join(dir, "falkordb.json"), "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor)
	rep := readReport(t, filepath.Join(dir, "falkordb.json"))
	if neoRep.Load == nil || rep.Load == nil {
		t.Fatalf("a run loaded nothing: neo4j %+v, falkordb %+v", neoRep.Load, rep.Load)
	}
	t.Logf("neo4j load: %d groups, %d nodes, %d relationships; falkordb load: %d groups, %d nodes, %d relationships in %s",
		neoRep.Load.Groups, neoRep.Load.Nodes, neoRep.Load.Edges, rep.Load.Groups, rep.Load.Nodes, rep.Load.Edges, res.Elapsed)
	if !reflect.DeepEqual(rep.Load.Counts, neoRep.Load.Counts) || rep.Load.Groups != neoRep.Load.Groups {
		t.Errorf("load reports differ:\nfalkordb %d groups %v\nneo4j    %d groups %v", rep.Load.Groups, rep.Load.Counts, neoRep.Load.Groups, neoRep.Load.Counts)
	}

	// Count in the databases themselves: each group's graph on FalkorDB, the one Neo4j database.
	graphs, err := db.Graphs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(graphs) != rep.Load.Groups {
		t.Errorf("%d graphs on FalkorDB for %d groups: %v", len(graphs), rep.Load.Groups, graphs)
	}
	for _, q := range []struct{ what, cypher string }{
		{"Episodic", "MATCH (n:Episodic) RETURN count(n)"},
		{"Entity", "MATCH (n:Entity) RETURN count(n)"},
		{"Community", "MATCH (n:Community) RETURN count(n)"},
		{"RELATES_TO", "MATCH ()-[r:RELATES_TO]->() RETURN count(r)"},
		{"MENTIONS", "MATCH ()-[r:MENTIONS]->() RETURN count(r)"},
		{"HAS_MEMBER", "MATCH ()-[r:HAS_MEMBER]->() RETURN count(r)"},
	} {
		var inFalkor int64
		for _, g := range graphs {
			n, err := db.Int(ctx, g, q.cypher)
			if err != nil {
				t.Fatal(err)
			}
			inFalkor += n
		}
		rows, err := harness.Neo4jQuery(ctx, neo, q.cypher+" AS c")
		if err != nil {
			t.Fatal(err)
		}
		if inNeo, _ := rows[0]["c"].(int64); inNeo != inFalkor || inFalkor == 0 {
			t.Errorf("%s: %d in FalkorDB, %d in Neo4j", q.what, inFalkor, inNeo)
		}
	}

	for _, g := range graphs {
		if n, err := db.Int(ctx, g, fmt.Sprintf("MATCH (n) WHERE n.group_id <> '%s' RETURN count(n)", g)); err != nil || n != 0 {
			t.Errorf("graph %s holds %d nodes of other groups (%v)", g, n, err)
		}
	}

	// A second run writes nothing: every load unit is skipped and the graph stays as it was.
	before, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	run(t, bin, job, filepath.Join(dir, "again.json"), "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor)
	again := readReport(t, filepath.Join(dir, "again.json"))
	if l := again.Stages["load"]; l.Units != 0 || l.Skipped != rep.Load.Groups || again.Load != nil {
		t.Errorf("the second run loaded: stage %+v, load %+v", l, again.Load)
	}
	after, err := db.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := harness.DiffLines(before, after); d != "" {
		t.Errorf("the second run changed the graph: %s", d)
	}
}
