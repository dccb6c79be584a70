package integrity

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestImportWithoutRecords: an import whose input holds no valid record writes nothing and
// exits 1, whatever was at --out before.
func TestImportWithoutRecords(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "episodes.parquet")
	for name, text := range map[string]string{
		"empty.json": "[]",
		"bad.json":   `[{"sample_id": "s1", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "not a date", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}]`,
	} {
		in := writeFile(t, filepath.Join(dir, name), text)
		want(t, "import "+name, run(t, []string{"import", "locomo", in, "--out", out}, harness.Options{}), 1, "nothing written")
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("import %s wrote %s", name, out)
		}
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	if len(matches) > 0 {
		t.Errorf("imports left %v", matches)
	}
}

// TestLeapSecond: a leap second (23:59:60Z) is a valid RFC 3339 time, in the input (auto and
// rfc3339 formats) and on the command line (query --valid-at); it reads as the next day's first
// instant, as Unix time counts it.
func TestLeapSecond(t *testing.T) {
	dir := t.TempDir()
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2016-12-31T23:59:60Z", "Alice", "Alice works at Kakao.")+
		line("g", "2017-01-01T08:59:60.5+09:00", "Alice", "Alice likes tea."))
	for _, format := range []string{"", "\n    time_format: rfc3339"} {
		checkpoint := filepath.Join(dir, "cp"+map[string]string{"": "auto"}[format]+".db")
		job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("leap", checkpoint, "path: "+input+format, ""))
		want(t, "run", run(t, []string{"run", job}, harness.Options{}), 0)
		want(t, "query --valid-at a leap second", run(t, []string{"query", job, "--valid-at", "2016-12-31T23:59:60Z"}, harness.Options{}), 0)
		ctx := context.Background()
		s, err := checkpoints.OpenReadOnly(ctx, checkpoint)
		if err != nil {
			t.Fatal(err)
		}
		var got []time.Time
		err = s.Episodes(ctx, func(e graph.Episode) error { got = append(got, e.ReferenceTime); return nil })
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		midnight := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
		if len(got) != 2 || !got[0].Equal(midnight) || !got[1].Equal(midnight.Add(500*time.Millisecond)) {
			t.Errorf("format %q: reference times %v, want %v and half a second later", format, got, midnight)
		}
	}
}
