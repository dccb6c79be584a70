package falkordb

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// demoQueries are graphiti_check.py's default queries, with a fact each must find on FalkorDB.
var demoQueries = map[string]string{
	"'Where does Alice work?'":       "Alice works at Naver (since 2024-03-02).",
	"'Where does Alice live?'":       "Alice lives in Pangyo.",
	"'Who is on the Payments team?'": "Alice is on the Payments team.",
	"'order status'":                 "Acme Corp has status active.",
}

// TestGraphitiSearchesFalkorDB runs scripts/graphiti_check.sh (make graphiti-check) with both
// shared servers held: graphiti-core's own search must find the demo's facts on FalkorDB, and
// its own index creation must leave backfill's indexes as they are.
func TestGraphitiSearchesFalkorDB(t *testing.T) {
	neo := testenv.Neo4jExclusive(t)
	falkor := testenv.FalkorDBExclusive(t)
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := harness.Build(t.Context(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// Only the demo's groups: Graphiti is asked about every group holding embeddings of its size.
	if err := harness.ClearNeo4j(t.Context(), neo); err != nil {
		t.Fatal(err)
	}
	db, err := harness.DialFalkorDB(falkor)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Clear(t.Context()); err != nil {
		t.Fatal(err)
	}
	res, err := harness.Run(t.Context(), filepath.Join(root, "scripts", "graphiti_check.sh"), nil, harness.Options{
		Env: append([]string{}, "BACKFILL_NEO4J_URI="+neo, "BACKFILL_FALKORDB_URI="+falkor, "BACKFILL_BIN="+bin,
			fmt.Sprintf("BACKFILL_STUB_PORT=%d", harness.FreePort(t))),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("graphiti_check.sh: exit %d\n%s\n%s", res.Code, res.Stdout, harness.Tail(res.Stderr, 30))
	}
	_, onFalkor, ok := strings.Cut(res.Stdout, "== graphiti-core 0.31.2 search on falkordb\n")
	if !ok {
		t.Fatalf("no FalkorDB section in the output:\n%s", res.Stdout)
	}
	onFalkor, comparison, _ := strings.Cut(onFalkor, "\n== ")
	t.Logf("graphiti on falkordb:\n%s\n== %s", onFalkor, comparison)
	if !strings.Contains(onFalkor, "graph groups: acme, alice, hanbit, jihoon, maeil-shop, shop\n") {
		t.Errorf("Graphiti did not find the demo's six group graphs")
	}
	if strings.Contains(onFalkor, "changed the indexes") {
		t.Errorf("Graphiti's own index creation changed backfill's indexes")
	}
	for q, fact := range demoQueries {
		_, rest, ok := strings.Cut(onFalkor, "query: "+q+": ")
		block, _, _ := strings.Cut(rest, "\n\n")
		if !ok || strings.HasPrefix(block, "0 facts") || !strings.Contains(block, fact) {
			t.Errorf("query %s on FalkorDB did not return %q:\n%s", q, fact, block)
		}
	}
}
