package snapshots_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/snapshots"
)

// exportDir writes the sample graph's export into a new directory.
func exportDir(t testing.TB) string {
	t.Helper()
	store := writeStore(t, sinkstest.Sample())
	dir := t.TempDir()
	if err := parquet.Export(context.Background(), store, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// readAll opens dir and reads every group; it returns the first error.
func readAll(dir string) error {
	snap, err := snapshots.Open(context.Background(), dir)
	if err != nil {
		return err
	}
	defer snap.Close()
	for _, err := range snap.Groups(context.Background(), nil) {
		if err != nil {
			return err
		}
	}
	return nil
}

// damages are what a table file of an export can become: each must be an error naming the file.
func damages(good []byte) map[string][]byte {
	flipped := append([]byte(nil), good...)
	for i := len(flipped) / 3; i < len(flipped)*2/3; i++ {
		flipped[i] ^= 0x5a
	}
	return map[string][]byte{
		"empty":                  {},
		"truncated":              good[:len(good)/2],
		"footer cut":             good[:len(good)-1],
		"garbage":                []byte(strings.Repeat("not parquet at all ", 20)),
		"garbage between magics": []byte("PAR1" + strings.Repeat("\x00\xff", 40) + "PAR1"),
		"damaged inside":         flipped,
	}
}

func TestDamagedExportTablesAreErrorsNamingTheFile(t *testing.T) {
	dir := exportDir(t)
	for _, table := range []string{parquet.EpisodesFile, parquet.EntitiesFile, parquet.FactsFile, parquet.MentionsFile,
		parquet.CommunitiesFile, parquet.HasMemberFile} {
		path := filepath.Join(dir, table)
		good, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for name, bad := range damages(good) {
			t.Run(table+"/"+name, func(t *testing.T) {
				if err := os.WriteFile(path, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				err := readAll(dir)
				// A flip inside may hit bytes the reader never decodes (or only values); then the
				// read may succeed, but it must not panic.
				if name == "damaged inside" && err == nil {
					return
				}
				if err == nil || !strings.Contains(err.Error(), table) {
					t.Errorf("err = %v, want an error naming %s", err, table)
				}
			})
		}
		if err := os.WriteFile(path, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExportTableThatIsADirectory(t *testing.T) {
	dir := exportDir(t)
	path := filepath.Join(dir, parquet.FactsFile)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := readAll(dir); err == nil || !strings.Contains(err.Error(), parquet.FactsFile) {
		t.Errorf("err = %v, want one naming %s", err, parquet.FactsFile)
	}
}

// FuzzExportTable puts arbitrary bytes in place of one table of a good export (the seeds run as
// a normal test): reading the export may fail, naming the file, but never panic.
// go test ./snapshots -run '^$' -fuzz FuzzExportTable -fuzztime 1m
func FuzzExportTable(f *testing.F) {
	dir := exportDir(f)
	tables := []string{parquet.EpisodesFile, parquet.EntitiesFile, parquet.FactsFile, parquet.MentionsFile,
		parquet.CommunitiesFile, parquet.HasMemberFile}
	originals := map[string][]byte{}
	for i, table := range tables {
		good, err := os.ReadFile(filepath.Join(dir, table))
		if err != nil {
			f.Fatal(err)
		}
		originals[table] = good
		for _, bad := range damages(good) {
			f.Add(uint8(i), bad)
		}
		f.Add(uint8(i), good)
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		table := tables[int(which)%len(tables)]
		path := filepath.Join(dir, table)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(path, originals[table], 0o644)
		if err := readAll(dir); err != nil && !strings.Contains(err.Error(), table) {
			t.Errorf("err = %v, want one naming %s", err, table)
		}
	})
}
