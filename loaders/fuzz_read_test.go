package loaders

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRead reads any file in each input format (JSON Lines, Parquet, LoCoMo, LongMemEval): a
// reader of a file the tool did not write never panics, and either stops with an error naming
// the file or emits rows of which every bad one names the file and a row (row 0: the file as a
// whole).
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		`{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","speaker":"A","content":"hi"}` + "\n",
		`{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":{"a":[1,{"b":null}]}}` + "\n{\n",
		`[{"sample_id":"s","conversation":{"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"A","dia_id":"D1:1","text":"hi"}]}}]`,
		`[{"question_id":"q","haystack_session_ids":["s"],"haystack_dates":["2023/05/20 (Sat) 02:21"],"haystack_sessions":[[{"role":"user","content":"x"}]]}]`,
		"PAR1\x15\x04\x15\x00PAR1", "PAR1", "", "[", "\x1f\x8b\x08\x00",
	} {
		f.Add([]byte(seed))
	}
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "badinput", "valid.parquet")); err == nil {
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, format := range []string{FormatJSONL, FormatParquet, FormatLoCoMo, FormatLongMemEval} {
			path := filepath.Join(dir, "in."+format)
			if err := os.WriteFile(path, body, 0o644); err != nil {
				t.Fatal(err)
			}
			err := Read(context.Background(), LocalFS{}, Spec{Path: path, Format: format}, func(r Result) error {
				if r.Bad != nil && (r.Bad.File != path || r.Bad.Row < 0) {
					t.Fatalf("%s: bad row %+v does not name the file and a row", format, r.Bad)
				}
				return nil
			})
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Fatalf("%s: error %q does not name the file", format, err)
			}
		}
	})
}
