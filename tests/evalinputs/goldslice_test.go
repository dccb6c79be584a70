package evalinputs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestGoldSliceScoresAsItsGroups: scripts/gold_slice.py's slice of the gold set (the rows, the
// gold facts and a job of some groups; make eval-graphiti's EVAL_GOLD_GROUPS), built and scored
// alone, gives the gold scores of the whole set's graph read with --group for the same groups,
// so the slice leaves out no row or gold fact of its groups and adds none of another. A group the
// gold set does not have is an error naming it.
func TestGoldSliceScoresAsItsGroups(t *testing.T) {
	bin, fix := setup(t)
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	slice := func(groups, out string) (string, error) {
		cmd := exec.Command("python3", filepath.Join("scripts", "gold_slice.py"), groups, out)
		cmd.Dir = root
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	out := t.TempDir()
	if log, err := slice("emma lumen", out); err != nil {
		t.Fatalf("gold_slice.py: %v\n%s", err, log)
	}
	if res := run(t, bin, out, "run", "job.yaml", "--checkpoint", "slice.db"); res.Code != 0 {
		t.Fatalf("run of the slice: exit %d\n%s", res.Code, res.Stderr)
	}
	if res := run(t, bin, out, "eval", "job.yaml@slice.db", "--gold", "gold.yaml", "--json", "slice.json"); res.Code != 0 {
		t.Fatalf("eval of the slice: exit %d\n%s", res.Code, res.Stderr)
	}
	whole := filepath.Join(out, "whole.json")
	if res := run(t, bin, fix, "eval", "job.yaml@gold.db", "--gold", "gold.yaml", "--group", "emma", "--group", "lumen", "--json", whole); res.Code != 0 {
		t.Fatalf("eval of the whole graph's groups: exit %d\n%s", res.Code, res.Stderr)
	}
	gold := func(path string) map[string]any {
		var r struct {
			Gold map[string]any `json:"gold"`
		}
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Gold == nil {
			t.Fatalf("%s has no gold scores", path)
		}
		delete(r.Gold, "file") // the gold file's path differs by construction
		return r.Gold
	}
	got, want := gold(filepath.Join(out, "slice.json")), gold(whole)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the slice's gold scores differ from the whole graph's for emma and lumen:\nslice %v\nwhole %v", got, want)
	}
	if eps, _ := got["per_episode"].([]any); len(eps) != 20 || got["groups"] != float64(2) { // emma 14 + lumen 6
		t.Errorf("the slice scores %d episodes of %v groups, want 20 of 2", len(eps), got["groups"])
	}

	log, err := slice("emma nosuchgroup", t.TempDir())
	if err == nil || !strings.Contains(log, "nosuchgroup") {
		t.Errorf("gold_slice.py with an unknown group: err %v, want an error naming it:\n%s", err, log)
	}
}
