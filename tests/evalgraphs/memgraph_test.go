package evalgraphs

import (
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestGoldScoresTheSameOnMemgraph loads the demo into the Memgraph of BACKFILL_MEMGRAPH_URI
// (.github/workflows/memgraph.yml starts Memgraph's container for it; skipped elsewhere) with
// sink.kind memgraph, then in analytical storage mode into the emptied database: each time eval
// of the Bolt graph, alone and with the job, names Memgraph and scores against the gold file as
// the checkpoint does, and diff finds no change.
func TestGoldScoresTheSameOnMemgraph(t *testing.T) {
	mg := testenv.Memgraph(t)
	_, dir := binary(t)
	tmp := t.TempDir()
	job, checkpoint := "jobs/examples/demo.yaml", filepath.Join(tmp, "demo.db")
	gold := []string{"--gold", "examples/gold/demo.yaml"}
	for _, analytical := range []string{"false", "true"} {
		t.Run("analytical="+analytical, func(t *testing.T) {
			if err := harness.ClearNeo4j(t.Context(), mg); err != nil { // any Bolt server
				t.Fatal(err)
			}
			backfill(t, dir, "run", job, "--checkpoint", checkpoint, "--set", "sink.kind=memgraph", "--set", "sink.uri="+mg,
				"--set", "sink.analytical="+analytical, "--set", "sink.reload=true")
			want := eval(t, dir, job+"@"+checkpoint, gold...)
			sameGold(t, dir, mg, "Memgraph graph", want, gold...)
			sameGold(t, dir, job+"@"+mg, "Memgraph graph", want, gold...)
			noChange(t, dir, job+"@"+checkpoint, mg, "Memgraph graph")
		})
	}
}
