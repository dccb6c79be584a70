package integrity

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/tests/harness"
)

// staged runs a job of one Parquet source with the given mapping (YAML flow mapping) and
// returns the staged episodes in row order, and the quarantined rows.
func staged(t *testing.T, dir, file, mapping, extra string) ([]graph.Episode, []harness.QuarantineLine, harness.Result) {
	t.Helper()
	name := strings.NewReplacer("{", "", "}", "", ":", "", ",", "", " ", "_").Replace(mapping)
	checkpoint := filepath.Join(dir, name+".db")
	source := fmt.Sprintf("path: %s\n    mapping: %s", repoPath(t, "testdata/integrity/"+file), mapping)
	job := writeFile(t, filepath.Join(dir, name+".yaml"), offlineJob("pq", checkpoint, source, "limits: {max_error_ratio: 1}\n"+extra))
	res := run(t, []string{"run", job}, harness.Options{})
	if res.Code != 0 && res.Code != 3 {
		t.Fatalf("%s: exit %d\n%s", mapping, res.Code, res.Stderr)
	}
	ctx := context.Background()
	s, err := checkpoints.OpenReadOnly(ctx, checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var eps []graph.Episode
	if err := s.Episodes(ctx, func(e graph.Episode) error { eps = append(eps, e); return nil }); err != nil {
		t.Fatal(err)
	}
	byRow := make([]graph.Episode, 0, len(eps))
	for row := int64(1); row <= 3; row++ { // Seq = row for the first file
		for _, e := range eps {
			if e.Seq == row {
				byRow = append(byRow, e)
			}
		}
	}
	return byRow, readQuarantine(t, checkpoint), res
}

// TestParquetTypesRoundTrip reads every integer, text and time type the loaders accept from a
// file written by pyarrow (testdata/integrity/make_parquet.py), at the edges of their ranges,
// and requires the exact values: UINT64 max as its digits, a UINT32 epoch in 2065 in 2065.
func TestParquetTypesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	keys := map[string][3]string{
		"u8":        {"0", "255", "7"},
		"u16":       {"0", "65535", "7"},
		"u32":       {"0", "4294967295", "2147483648"},
		"u64":       {"0", "18446744073709551615", "9223372036854775808"},
		"i8":        {"-128", "127", "0"},
		"i16":       {"-32768", "32767", "0"},
		"i32":       {"-2147483648", "2147483647", "0"},
		"i64":       {"-9223372036854775808", "9223372036854775807", "0"},
		"key_uuid":  {"00010203-0405-0607-0809-0a0b0c0d0e0f", "ffffffff-ffff-ffff-ffff-ffffffffffff", "00000000-0000-0000-0000-000000000000"},
		"key_str":   {"ключ", "鍵", "k\x00ey"},
		"key_large": {"aaa", "b", "c"},
		"key_dict":  {"x", "y", "z"},
	}
	for col, w := range keys {
		eps, q, _ := staged(t, dir, "types.parquet", fmt.Sprintf("{reference_time: t_ts_us, record_key: %s}", col), "")
		if len(eps) != 3 || len(q) != 0 {
			t.Errorf("record_key %s: %d episodes, quarantine %v; want 3 and none", col, len(eps), q)
			continue
		}
		for i, e := range eps {
			if e.RecordKey != w[i] {
				t.Errorf("record_key %s row %d = %q, want %q", col, i+1, e.RecordKey, w[i])
			}
		}
	}
	t0 := time.Date(2024, 3, 1, 9, 0, 0, 123456000, time.UTC)
	t1 := time.Date(2065, 1, 24, 5, 20, 0, 0, time.UTC)
	t2 := time.Unix(0, 0).UTC()
	day := func(t time.Time) time.Time { return t.Truncate(24 * time.Hour) }
	times := map[string][3]time.Time{
		"t_u32":      {t0.Truncate(time.Second), t1, t2},
		"t_u64_ms":   {t0.Truncate(time.Millisecond), t1, t2},
		"t_i64_s":    {t0.Truncate(time.Second), t1, t2},
		"t_ts_s":     {t0.Truncate(time.Second), t1, t2},
		"t_ts_ms":    {t0.Truncate(time.Millisecond), t1, t2},
		"t_ts_us":    {t0, t1, t2},
		"t_ts_ns":    {t0, t1, t2},
		"t_naive_us": {t0, t1, t2},
		"t_date":     {day(t0), day(t1), t2},
		"t_double":   {t0, t1, t2},
		"t_str":      {t0, t1, t2},
	}
	check := func(file, col string, w [3]time.Time) {
		eps, q, _ := staged(t, dir, file, fmt.Sprintf("{reference_time: %s, record_key: content}", col), "")
		if len(eps) != 3 || len(q) != 0 {
			t.Errorf("reference_time %s: %d episodes, quarantine %v; want 3 and none", col, len(eps), q)
			return
		}
		for i, e := range eps {
			if !e.ReferenceTime.Equal(w[i]) {
				t.Errorf("reference_time %s row %d = %s, want %s", col, i+1, e.ReferenceTime.Format(time.RFC3339Nano), w[i].Format(time.RFC3339Nano))
			}
		}
	}
	for col, w := range times {
		check("types.parquet", col, w)
	}
	check("int96.parquet", "t_int96", [3]time.Time{t0, t1, t2})
}

// TestParquetBadValues: stored values the loaders cannot read exactly are quarantined with the
// reason (an INT96 time of day beyond a day; a naive time inside a DST gap), the others staged.
func TestParquetBadValues(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, col, extra, reason string
		badRow                   int64
	}{
		{"bad_values.parquet", "t_int96", "", "outside one day", 2},
		{"dst_gap.parquet", "t_naive", "timezone: America/New_York\n", "does not exist in America/New_York", 3},
	} {
		eps, q, res := staged(t, dir, tc.file, fmt.Sprintf("{reference_time: %s}", tc.col), tc.extra)
		want(t, tc.col, res, 3)
		if len(eps) != 2 || len(q) != 1 || q[0].Row != tc.badRow || q[0].Field != tc.col || !strings.Contains(q[0].Reason, tc.reason) {
			t.Errorf("%s: %d staged, quarantine %+v; want 2 staged and row %d quarantined (%q)", tc.col, len(eps), q, tc.badRow, tc.reason)
		}
	}
}

// TestParquetFooterBomb: a 1 KB file whose footer claims 2^31-1 schema elements is quarantined
// as a whole with the reason in `run` and counted in `plan`, instead of exhausting memory; so
// is one whose page header claims a 2 GiB page.
func TestParquetFooterBomb(t *testing.T) {
	dir := t.TempDir()
	bomb := repoPath(t, "testdata/integrity/footer_bomb.parquet")
	good := writeFile(t, filepath.Join(dir, "good.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), fmt.Sprintf(`name: bomb
checkpoint: %s
sources:
  - path: %s
  - path: %s
limits: {max_error_ratio: 1}
`, checkpoint, bomb, good))
	res := run(t, []string{"plan", job}, harness.Options{})
	want(t, "plan", res, 0)
	if !strings.Contains(res.Stdout, "1 rows quarantined") {
		t.Errorf("plan does not count the quarantined file:\n%s", res.Stdout)
	}
	res = run(t, []string{"run", job}, harness.Options{})
	want(t, "run", res, 3)
	q := readQuarantine(t, checkpoint)
	if len(q) != 1 || q[0].File != bomb || q[0].Row != 0 || !strings.Contains(q[0].Reason, "2147483647") {
		t.Errorf("quarantine %+v, want the file as a whole (row 0) with the claimed count", q)
	}

	// The same for a page header that claims a 2 GiB page in a chunk of a few dozen bytes.
	pageBomb := repoPath(t, "testdata/integrity/page_bomb.parquet")
	job = writeFile(t, filepath.Join(dir, "page.yaml"), offlineJob("page", checkpoint, "path: "+pageBomb, "limits: {max_error_ratio: 1}\n"))
	want(t, "run", run(t, []string{"run", job}, harness.Options{}), 3)
	q = readQuarantine(t, checkpoint)
	if len(q) != 1 || q[0].File != pageBomb || q[0].Row != 0 || !strings.Contains(q[0].Reason, "page header") {
		t.Errorf("quarantine %+v, want the file as a whole (row 0) for its page header", q)
	}
}
