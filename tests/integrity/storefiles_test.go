package integrity

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
	_ "modernc.org/sqlite" // reads the store's table pages
)

// TestPlantedLockLink: a symbolic link planted at <checkpoint>.lock (or a hard link) that
// points at a file the test owns makes every command that writes the store fail naming it,
// and the file keeps its contents; the commands that only read the store work.
func TestPlantedLockLink(t *testing.T) {
	for _, link := range []struct {
		name string
		make func(target, name string) error
		says string
	}{{"symlink", os.Symlink, "is a symbolic link"}, {"hard link", os.Link, "hard links"}} {
		t.Run(link.name, func(t *testing.T) {
			dir := t.TempDir()
			input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
			checkpoint := filepath.Join(dir, "cp.db")
			job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("planted", checkpoint, "path: "+input, ""))
			want(t, "first run", run(t, []string{"run", job}, harness.Options{}), 0)
			const mine = "a file the user owns and never named\n"
			victim := writeFile(t, filepath.Join(dir, "mine.txt"), mine)
			if err := os.Remove(checkpoint + ".lock"); err != nil {
				t.Fatal(err)
			}
			if err := link.make(victim, checkpoint+".lock"); err != nil {
				t.Fatal(err)
			}
			want(t, "run", run(t, []string{"run", job}, harness.Options{}), 1, checkpoint+".lock", link.says, "remove it")
			want(t, "status", run(t, []string{"status", job}, harness.Options{}), 0)
			want(t, "export", run(t, []string{"export", job, "--out", filepath.Join(dir, "out")}, harness.Options{}), 0)
			if b, err := os.ReadFile(victim); err != nil || string(b) != mine {
				t.Errorf("the linked file changed: %q (%v)", b, err)
			}
		})
	}
}

// TestDamagedStore: a store with bytes damaged in the middle (the first page of each table and index) makes run, status, export and query
// fail with exit 1, each error naming the store and what to do (PRAGMA integrity_check, restore
// a copy or the last snapshot); export leaves no output.
func TestDamagedStore(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := range 300 {
		in.WriteString(line(fmt.Sprintf("g%d", i%6), fmt.Sprintf("2024-03-01T09:%02d:%02dZ", i/60, i%60), "Alice",
			fmt.Sprintf("Alice met Bob number %d at the Kakao office in Pangyo and talked about payments.", i)))
	}
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), in.String())
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("damaged", checkpoint, "path: "+input, ""))
	want(t, "first run", run(t, []string{"run", job}, harness.Options{}), 0)
	damageMiddle(t, checkpoint)
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{{"status", job}, {"query", job, "--json"}, {"export", job, "--out", out}, {"run", job}} {
		res := run(t, args, harness.Options{})
		want(t, args[0]+" on a damaged store", res, 1, "checkpoint store "+checkpoint+" is corrupt", "PRAGMA integrity_check", "snapshot")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("export of a damaged store left an output directory")
	}
}

// damageMiddle overwrites the start of the root page of every table and index but meta's (pages in the
// middle of the file: a store opens, and the damage is met by the first read of a table).
func damageMiddle(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var pages []int64
	var pageSize int64
	err = db.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	if err == nil {
		var rows *sql.Rows
		rows, err = db.Query(`SELECT rootpage FROM sqlite_master WHERE type IN ('table','index') AND tbl_name <> 'meta' AND rootpage > 2`)
		for err == nil && rows.Next() {
			var p int64
			err = rows.Scan(&p)
			pages = append(pages, p)
		}
		if err == nil {
			err = rows.Err()
		}
	}
	db.Close()
	if err != nil || len(pages) < 5 {
		t.Fatalf("reading the table pages of %s: %v (%d pages)", path, err, len(pages))
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range pages {
		if _, err := f.WriteAt([]byte(strings.Repeat("\xff", 16)), (p-1)*pageSize); err != nil {
			t.Fatal(err)
		}
	}
}
