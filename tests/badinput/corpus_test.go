package badinput

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the corpus in testdata/badinput from its generator")

// corpusDir is the committed bad-input corpus, at the repo root.
const corpusDir = "../../testdata/badinput"

// corpus returns every generated file of the corpus by name.
func corpus() map[string][]byte {
	files := map[string][]byte{}
	for _, part := range []map[string][]byte{jsonlCorpus(), parquetCorpus(), locomoCorpus()} {
		for k, v := range part {
			files[k] = v
		}
	}
	return files
}

// TestCorpusUpToDate checks that testdata/badinput holds exactly what the generator makes
// (-update rewrites it), so the corpus and the expectations below cannot drift apart.
func TestCorpusUpToDate(t *testing.T) {
	files := corpus()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(corpusDir, n)
		if *update {
			if err := os.WriteFile(p, files[n], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("reading %s (run go test ./tests/badinput -run TestCorpusUpToDate -update): %v", n, err)
			continue
		}
		if !bytes.Equal(got, files[n]) {
			t.Errorf("%s differs from its generator (run with -update)", n)
		}
	}
}
