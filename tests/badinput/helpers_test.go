package badinput

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/tests/harness"
)

// qrow is an expected quarantined row: the input file's base name, the 1-based row, the field
// at fault ("" for the row as a whole) and a substring of the reason.
type qrow struct {
	file   string
	row    int64
	field  string
	reason string
}

// quarantineLine is one line of <checkpoint>.quarantine.jsonl.
type quarantineLine = harness.QuarantineLine

// buildBinary builds backfill for the test.
func buildBinary(t *testing.T) string {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin, err := harness.Build(t.Context(), root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// writeJob writes a job with one source (the YAML of a sources[] entry after "- ", further
// lines indented by four spaces) and extra top-level YAML; it returns the job file and the
// checkpoint path.
func writeJob(t *testing.T, dir, name, source, extra string) (job, checkpoint string) {
	t.Helper()
	checkpoint = filepath.Join(dir, name+".db")
	text := fmt.Sprintf("name: %s\ncheckpoint: %s\nrecord_time: reference\nsources:\n  - %s\n%s", name, checkpoint, source, extra)
	job = filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job, checkpoint
}

// readQuarantine reads the quarantine JSONL file of a checkpoint (none: no lines).
func readQuarantine(t *testing.T, checkpoint string) []quarantineLine {
	t.Helper()
	q, err := harness.ReadQuarantine(checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// episodesByName returns the staged episodes of a checkpoint by name.
func episodesByName(t *testing.T, checkpoint string) map[string]graph.Episode {
	t.Helper()
	ctx := context.Background()
	s, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[string]graph.Episode{}
	err = s.Episodes(ctx, func(e graph.Episode) error {
		out[e.Name] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkQuarantine requires the quarantine lines to be exactly the expected rows.
func checkQuarantine(t *testing.T, got []quarantineLine, want []qrow) {
	t.Helper()
	key := func(file string, row int64, field string) string { return fmt.Sprintf("%s:%d:%s", file, row, field) }
	wantBy := map[string]qrow{}
	for _, w := range want {
		wantBy[key(w.file, w.row, w.field)] = w
	}
	seen := map[string]bool{}
	for _, q := range got {
		k := key(filepath.Base(q.File), q.Row, q.Field)
		w, ok := wantBy[k]
		switch {
		case !ok:
			t.Errorf("unexpected quarantined row %s: %q", k, q.Reason)
		case !strings.Contains(q.Reason, w.reason):
			t.Errorf("quarantined row %s: reason %q, want it to contain %q", k, q.Reason, w.reason)
		case q.Reason == "" || q.Row < 1 || q.File == "":
			t.Errorf("quarantined row %s does not name its file, row and reason: %+v", k, q)
		}
		seen[k] = true
	}
	var missing []string
	for k := range wantBy {
		if !seen[k] {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("rows not quarantined: %v", missing)
	}
}

// names returns "file:row" for each row, the default episode name of a JSON Lines or Parquet row.
func names(file string, rows ...int64) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%s:%d", file, r)
	}
	return out
}
