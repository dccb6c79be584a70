package evaluation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzReadDataset reads arbitrary bytes as a LoCoMo and a LongMemEval file (the seeds, good
// files and damaged ones, run as a normal test): an error or a dataset, never a panic, and a
// dataset always has questions.
// go test ./evaluation -run '^$' -fuzz FuzzReadDataset -fuzztime 1m
func FuzzReadDataset(f *testing.F) {
	lme := `[{"question_id": "q1", "question_type": "multi-session", "question": "Where?", "answer": "Oslo",
 "question_date": "2023/05/30 (Tue) 23:40", "haystack_session_ids": ["s1"], "haystack_sessions": [[{"has_answer": true}]],
 "answer_session_ids": ["s1"]}]`
	for _, good := range []string{tinyLoCoMo, modesLoCoMo, lme} {
		f.Add(good)
		f.Add(good[:len(good)/2])
		f.Add(strings.ReplaceAll(good, `"`, `'`))
	}
	for _, s := range []string{"", "[]", "{}", "null", "[null]", `[{"sample_id": {}}]`, `[{"sample_id": "x", "qa": [{"evidence": [7]}]}]`,
		`[{"question_id": "q", "question_date": "yesterday"}]`, "\x00\xff", strings.Repeat("[", 10000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, kind := range []string{"locomo", "longmemeval"} {
			d, err := ReadDataset(context.Background(), kind, strings.NewReader(data), time.UTC)
			if err == nil && d.Count() == 0 {
				t.Errorf("%s: a dataset without questions and no error", kind)
			}
		}
	})
}

// FuzzReadGold reads arbitrary bytes as a gold file (the seeds run as a normal test): an error
// naming the file or a gold file with episodes, never a panic.
// go test ./evaluation -run '^$' -fuzz FuzzReadGold -fuzztime 1m
func FuzzReadGold(f *testing.F) {
	good, err := os.ReadFile(filepath.Join("..", "examples", "gold", "demo.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{string(good), string(good[:len(good)/2]), tinyGold, "", "episodes: []", "episodes: 7",
		"episodes:\n  - {group: s, key: k, facts: [[a, b, c, 2024..2023, -]]}\n", "relations: {A: [A, A]}\n", "&a [*a, *a]", "\x00\xff"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data string) {
		path := filepath.Join(dir, "gold.yaml")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := ReadGold(path)
		switch {
		case err != nil && !strings.Contains(err.Error(), path):
			t.Errorf("err = %v, want one naming the file", err)
		case err == nil && len(g.Episodes) == 0:
			t.Error("a gold file without episodes and no error")
		}
	})
}
