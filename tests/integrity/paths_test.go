package integrity

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestCheckpointPathsStaySeparate: checkpoint names that differ only after a '#', a '?' or a
// '%', or that hold spaces and other Unicode, each name their own store: every job sees only
// its own episodes, and each store is the file its name says.
func TestCheckpointPathsStaySeparate(t *testing.T) {
	dir := t.TempDir()
	names := []string{"job.db", "job.db#2", "job.db#3", "job.db?mode=memory", "job.db?x", "job%2Edb", "job%", "my job.db", "작업 ü.db"}
	episodes := regexp.MustCompile(`episodes\s+(\d+) in`)
	for i, n := range names {
		var in strings.Builder
		for k := range i + 1 { // job i stages i+1 episodes
			in.WriteString(line(fmt.Sprintf("g%d", i), fmt.Sprintf("2024-03-01T09:%02d:00Z", k), "Alice", fmt.Sprintf("Note %d of job %d.", k, i)))
		}
		input := writeFile(t, filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i)), in.String())
		job := writeFile(t, filepath.Join(dir, fmt.Sprintf("job%d.yaml", i)), offlineJob(fmt.Sprintf("j%d", i), fmt.Sprintf("%q", filepath.Join(dir, n)), "path: "+input, ""))
		want(t, "run "+n, run(t, []string{"run", job}, harness.Options{}), 0)
	}
	for i, n := range names {
		job := filepath.Join(dir, fmt.Sprintf("job%d.yaml", i))
		res := run(t, []string{"status", job}, harness.Options{})
		want(t, "status "+n, res, 0)
		m := episodes.FindStringSubmatch(res.Stdout)
		if m == nil || m[1] != fmt.Sprint(i+1) {
			t.Errorf("checkpoint %q: status says %v episodes, want %d (its own)\n%s", n, m, i+1, res.Stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("checkpoint %q is not the file it names: %v", n, err)
		}
	}
	// Nothing else was written: only the stores named, their side files, inputs and jobs.
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, n := range names {
		for _, suffix := range []string{"", "-wal", "-shm", ".lock", ".quarantine.jsonl", ".failed.jsonl"} {
			known[n+suffix] = true
		}
	}
	for _, e := range ents {
		if n := e.Name(); !known[n] && !strings.HasPrefix(n, "in") && !strings.HasPrefix(n, "job") ||
			strings.HasPrefix(n, "job") && !known[n] && !strings.HasSuffix(n, ".yaml") {
			t.Errorf("a file no store names was written: %q", n)
		}
	}
}
