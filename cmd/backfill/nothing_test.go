package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffAndEvalSayWhatTheyCannotCompare (issue 36, item 7): diff of two graphs with no group
// in common says so, in the summary, the JSON report and the Markdown, rather than only listing
// every group as changed; eval of a Parquet export says why the closures' check is n/a although
// the export holds fact_versions.parquet.
func TestDiffAndEvalSayWhatTheyCannotCompare(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	dir := t.TempDir()
	demo, tickets, export := filepath.Join(dir, "demo.db"), filepath.Join(dir, "tickets.db"), filepath.Join(dir, "export")
	runQuiet(t, "jobs/examples/demo.yaml", "--checkpoint", demo)
	runQuiet(t, "jobs/examples/tickets.yaml", "--checkpoint", tickets)
	const none = "no group in common: every group of A is removed and every group of B added"
	summary, _, rep, md := diffJSON(t, "jobs/examples/demo.yaml@"+demo, "jobs/examples/tickets.yaml@"+tickets)
	if rep.GroupsCommon != 0 || rep.Groups == 0 || !strings.Contains(summary, "\n  "+none) || !strings.Contains(md, none) {
		t.Errorf("diff of graphs with no group in common: %d groups, %d in common\n%s\n%s", rep.Groups, rep.GroupsCommon, summary, md)
	}
	summary, _, rep, _ = diffJSON(t, "jobs/examples/demo.yaml@"+demo, "jobs/examples/demo.yaml@"+demo)
	if rep.GroupsCommon != 6 || strings.Contains(summary, none) {
		t.Errorf("diff of a graph with itself: %d groups in common\n%s", rep.GroupsCommon, summary)
	}

	mustBackfill(t, exitOK, "export", "jobs/examples/demo.yaml", "--checkpoint", demo, "--format", "parquet", "--out", export)
	out := mustBackfill(t, exitOK, "eval", export)
	if !strings.Contains(out, "closed by a fact sharing no endpoint n/a (an export's fact_versions.parquet is ordered by fact, not read group by group: eval the checkpoint for this)") {
		t.Errorf("eval of an export does not say why the version log is not read:\n%s", out)
	}
	if out := mustBackfill(t, exitOK, "eval", "jobs/examples/demo.yaml@"+demo); strings.Contains(out, "n/a") {
		t.Errorf("eval of the checkpoint leaves a check n/a:\n%s", out)
	}
}
