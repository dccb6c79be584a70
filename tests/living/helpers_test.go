package living

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// env is what a test of this package works with: the repository, the binary, a directory.
type env struct {
	root, bin, dir, neo string
}

func newEnv(t *testing.T, neo string) env {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := harness.Build(t.Context(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.ClearNeo4j(t.Context(), neo); err != nil {
		t.Fatal(err)
	}
	return env{root: root, bin: bin, dir: t.TempDir(), neo: neo}
}

// job writes a job loading source (a copy of the demo's conversations) into the Neo4j with the
// offline responder and returns its path.
func (e env) job(t *testing.T, name, source string) string {
	t.Helper()
	path := filepath.Join(e.dir, name+".yaml")
	y := fmt.Sprintf(`name: %s
checkpoint: %s
timezone: Asia/Seoul
record_time: reference
sources:
  - path: %s
    format: jsonl
    source: message
    description: chat history
    mapping:
      group: group_id
      reference_time: reference_time
      speaker: speaker
      body: content
llm:
  provider: offline
embedder:
  provider: offline
  dimensions: 256
sink:
  kind: neo4j
  uri: %s
`, name, filepath.Join(e.dir, name+".db"), source, e.neo)
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// conversations copies the demo's conversations into the test directory under name.
func (e env) conversations(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.root, "examples", "conversations.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(e.dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// appendLine adds a JSON line to a source file.
func appendLine(t *testing.T, path string, row map[string]string) {
	t.Helper()
	b, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// run runs `backfill run job` with extra arguments and returns its exit code, its report (when
// it wrote one) and its output.
func (e env) run(t *testing.T, job string, extra ...string) (int, report.Report, harness.Result) {
	t.Helper()
	f, err := os.CreateTemp(e.dir, "report-*.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep := f.Name()
	res, err := harness.Run(t.Context(), e.bin, append([]string{"run", job, "--report", rep}, extra...), harness.Options{Dir: e.dir})
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if b, err := os.ReadFile(rep); err == nil {
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("reading %s: %v", rep, err)
		}
	}
	return res.Code, r, res
}

// count runs a Cypher query returning one integer n.
func (e env) count(t *testing.T, q string) int64 {
	t.Helper()
	rows, err := harness.Neo4jQuery(t.Context(), e.neo, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%s: %d rows", q, len(rows))
	}
	n, _ := rows[0]["n"].(int64)
	return n
}

// groupCounts counts the nodes per label and relationships per type of group.
func (e env) groupCounts(t *testing.T, group string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, l := range []string{"Episodic", "Entity", "Community"} {
		out[l] = e.count(t, fmt.Sprintf("MATCH (n:%s {group_id: '%s'}) RETURN count(n) AS n", l, group))
	}
	for _, r := range []string{"MENTIONS", "RELATES_TO", "HAS_MEMBER"} {
		out[r] = e.count(t, fmt.Sprintf("MATCH ()-[r:%s {group_id: '%s'}]->() RETURN count(r) AS n", r, group))
	}
	return out
}
