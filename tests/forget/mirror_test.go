package forget

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/tests/harness"
)

// episodeUUIDs lists the uuids of the store's episodes, sorted.
func episodeUUIDs(t *testing.T, cp string) []string {
	t.Helper()
	store := harness.OpenStore(t, cp)
	defer store.Close()
	eps, err := store.SelectEpisodes(context.Background(), checkpoints.Selection{Groups: []string{"g1", "g2", "g3"}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range eps {
		out = append(out, e.UUID)
	}
	slices.Sort(out)
	return out
}

// TestMirrorGuard: a mirror source emptied by mistake stops the run (exit 1, nothing
// forgotten); rows removed within limits.max_vanished_ratio are forgotten, exactly them and
// everywhere; rows that come back are new input.
func TestMirrorGuard(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	rows := conversations()
	rows = rows[:len(rows)-1] // no quarantined row: a mirror source with one forgets nothing that run
	input := filepath.Join(dir, "chat.jsonl")
	n := writeRows(t, input, rows, "")
	cp := filepath.Join(dir, "job.db")
	job := writeJob(t, dir, "mirror", cp, input, offlineModels, "", "    sync: mirror")
	mustExit(t, "run", backfill(t, bin, "run", job), 0)
	all := episodeUUIDs(t, cp)
	if len(all) != n {
		t.Fatalf("%d episodes after the first run, want %d", len(all), n)
	}

	// Emptied by mistake: refused, nothing forgotten.
	if err := os.WriteFile(input, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res := backfill(t, bin, "run", job)
	mustExit(t, "run on the emptied source", res, 1)
	want := fmt.Sprintf("mirroring source 0 (%s): %d of its %d episodes vanished", input, n, n)
	if !strings.Contains(res.Stderr, want) || !strings.Contains(res.Stderr, "limits.max_vanished_ratio 0.1") || !strings.Contains(res.Stderr, "nothing was forgotten") {
		t.Errorf("run on the emptied source: stderr %q; want %q, the limit and that nothing was forgotten", res.Stderr, want)
	}
	if got := episodeUUIDs(t, cp); !slices.Equal(got, all) {
		t.Errorf("the refused run changed the episodes: %d left of %d", len(got), len(all))
	}
	store := harness.OpenStore(t, cp)
	dels, err := store.Deletions(context.Background())
	store.Close()
	if err != nil || len(dels) != 0 {
		t.Fatalf("deletions after the refused run: %+v, %v; want none", dels, err)
	}

	// The path briefly holds the wrong file (other rows): refused, and nothing of it staged;
	// once the right file is back, the run finds nothing vanished and nothing new.
	var wrong []row
	for _, r := range rows {
		r.Content = "(wrong file) " + r.Content
		wrong = append(wrong, r)
	}
	writeRows(t, input, wrong, "")
	res = backfill(t, bin, "run", job)
	mustExit(t, "run on the wrong file", res, 1)
	if !strings.Contains(res.Stderr, fmt.Sprintf("%d of its %d episodes vanished", n, n)) || !strings.Contains(res.Stderr, "nothing staged") {
		t.Errorf("run on the wrong file: stderr %q; want all %d episodes vanished and nothing staged", res.Stderr, n)
	}
	if got := episodeUUIDs(t, cp); !slices.Equal(got, all) {
		t.Errorf("the refused run staged the wrong file's rows: %d episodes, want the %d of before", len(got), len(all))
	}
	writeRows(t, input, rows, "")
	res = backfill(t, bin, "run", job)
	mustExit(t, "run on the right file again", res, 0)
	if got := episodeUUIDs(t, cp); !slices.Equal(got, all) {
		t.Errorf("after the right file came back: %d episodes, want the %d of before", len(got), len(all))
	}

	// Two rows removed (2 of 25, within 0.1): exactly their episodes go, everywhere.
	gone := []string{"I live in Oslo.", "I moved to Daegu last month."}
	var kept []row
	for _, r := range rows {
		if !slices.Contains(gone, r.Content) {
			kept = append(kept, r)
		}
	}
	writeRows(t, input, kept, "")
	rep := filepath.Join(dir, "mirror.json")
	mustExit(t, "run with two rows removed", backfill(t, bin, "run", job, "--report", rep), 0)
	if r := readReport(t, rep); r.Vanished != 2 || r.Purged == nil || r.Purged.GroupsDone != 2 {
		t.Errorf("report: vanished %d, purged %+v; want 2 episodes of 2 groups", r.Vanished, r.Purged)
	}
	left := episodeUUIDs(t, cp)
	if len(left) != n-2 {
		t.Fatalf("%d episodes left, want %d", len(left), n-2)
	}
	for _, u := range left {
		if !slices.Contains(all, u) {
			t.Errorf("episode %s is new", u)
		}
	}
	if files := filesHolding(t, "Daegu", cp, cp+"-wal"); len(files) > 0 {
		t.Errorf("the store still holds the text of a vanished row: %v", files)
	}
	store = harness.OpenStore(t, cp)
	dels, err = store.Deletions(context.Background())
	store.Close()
	if err != nil || len(dels) != 1 || dels[0].Episodes != 2 || dels[0].Command != "run (sources[0].sync: mirror)" ||
		len(dels[0].Selectors) != 1 || dels[0].Selectors[0] != (checkpoints.Selector{Kind: checkpoints.SelectVanished, Source: input}) {
		t.Errorf("deletion record %+v, %v; want one of 2 episodes vanished from %s", dels, err, input)
	}

	// The rows come back: they are new input, not forgotten ones.
	writeRows(t, input, rows, "")
	mustExit(t, "run with the rows back", backfill(t, bin, "run", job, "--report", rep), 0)
	if r := readReport(t, rep); r.Forgotten != 0 || r.Episodes != n {
		t.Errorf("rows back: forgotten %d, episodes %d; want 0, %d", r.Forgotten, r.Episodes, n)
	}
}
