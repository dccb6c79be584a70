package forget

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/tests/harness"
)

// fileSums hashes the files of a store that hold its data (the database and its log).
func fileSums(t *testing.T, cp string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	for _, f := range []string{cp, cp + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		out[f] = sha256.Sum256(b)
	}
	return out
}

// TestForgetDryRunSkipAndUnknownGroup: a dry run lists what would go and changes nothing; an
// unknown group is an error naming the nearest; a forgotten speaker's rows, still in the
// source, are skipped and counted by the next runs until they leave the source; forgetting
// again says it was done.
func TestForgetDryRunSkipAndUnknownGroup(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	rows := conversations()
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, rows, "")
	cp := filepath.Join(dir, "job.db")
	job := writeJob(t, dir, "skip", cp, input, offlineModels, "", "")
	mustExit(t, "run", backfill(t, bin, "run", job), 3) // the quarantined row
	zora, zoraRows := 0, 0                              // her episodes, and her rows (one is quarantined)
	for _, r := range rows {
		if r.Speaker == "Zora" {
			zoraRows++
			if !strings.Contains(r.Time, planted) {
				zora++
			}
		}
	}

	sums := fileSums(t, cp)
	res := backfill(t, bin, "forget", job, "--speaker", "Zora", "--dry-run")
	mustExit(t, "dry run", res, 0)
	for _, want := range []string{"would go", "5 episodes of 1 groups", "entity", "fact", "quarantine  1 quarantined rows"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if !strings.Contains(res.Stdout, planted) {
		t.Errorf("the dry run does not list the entities and facts that would go:\n%s", res.Stdout)
	}
	after := fileSums(t, cp)
	for f, s := range sums {
		if after[f] != s {
			t.Errorf("the dry run changed %s", f)
		}
	}
	if qs, _ := harness.ReadQuarantine(cp); len(qs) != 1 {
		t.Errorf("the dry run changed the quarantine file: %d lines, want 1", len(qs))
	}

	res = backfill(t, bin, "forget", job, "--group", "g22")
	mustExit(t, "forget an unknown group", res, 1)
	if !strings.Contains(res.Stderr, `group "g22" is not in checkpoint`) || !strings.Contains(res.Stderr, "did you mean g2?") {
		t.Errorf("unknown group: stderr %q; want it to name the nearest group", res.Stderr)
	}

	mustExit(t, "forget", backfill(t, bin, "forget", job, "--speaker", "Zora"), 0)
	store := harness.OpenStore(t, cp)
	dels, err := store.Deletions(context.Background())
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(dels) != 1 || dels[0].Episodes != zora || len(dels[0].Selectors) != 1 ||
		dels[0].Selectors[0] != (checkpoints.Selector{Kind: checkpoints.SelectSpeaker, Hash: checkpoints.HashValue(checkpoints.SelectSpeaker, "Zora")}) ||
		dels[0].PurgedAt == nil || dels[0].Command != "backfill forget" {
		t.Errorf("deletion record %+v: want one completed deletion of %d episodes by speaker hash", dels, zora)
	}
	if qs, _ := harness.ReadQuarantine(cp); len(qs) != 0 {
		t.Errorf("the quarantine file keeps %d lines of Zora's", len(qs))
	}

	// The source still holds Zora's rows: skipped and counted (her bad row too, whose text the
	// quarantine would hold again), nothing recomputed.
	rep := filepath.Join(dir, "again.json")
	mustExit(t, "run after forgetting", backfill(t, bin, "run", job, "--report", rep), 0)
	r := readReport(t, rep)
	if r.Forgotten != zoraRows || r.Quarantined != 0 || r.LLM.Calls != 0 || r.Stages["extract"].Units != 0 {
		t.Errorf("run while the source holds the forgotten rows: forgotten %d, quarantined %d, llm calls %d, extract units %d; want %d, 0, 0, 0",
			r.Forgotten, r.Quarantined, r.LLM.Calls, r.Stages["extract"].Units, zoraRows)
	}
	if files := filesHolding(t, planted, cp, cp+"-wal"); len(files) > 0 {
		t.Errorf("the run after forgetting brought %q back into %v", planted, files)
	}
	res = backfill(t, bin, "forget", job, "--speaker", "Zora")
	mustExit(t, "forget again", res, 0)
	if !strings.Contains(res.Stderr, `--speaker "Zora" was forgotten by deletion 1`) {
		t.Errorf("forgetting again: stderr %q; want it to name the deletion", res.Stderr)
	}

	// Removed from the source: nothing to skip any more.
	writeRows(t, input, rows, "Zora")
	mustExit(t, "run without the rows", backfill(t, bin, "run", job, "--report", rep), 0)
	if r := readReport(t, rep); r.Forgotten != 0 {
		t.Errorf("forgotten %d after the rows left the source, want 0", r.Forgotten)
	}
}
