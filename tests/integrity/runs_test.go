package integrity

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestQuarantinePerRun: a run with a bad row exits 3; once the row is fixed the next run exits
// 0 and its quarantine (file, count, status) holds nothing from the run before; a row still bad
// keeps exit 3 and is the only one reported.
func TestQuarantinePerRun(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "in.jsonl")
	good := line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao.")
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("q", checkpoint, "path: "+input, "limits: {max_error_ratio: 1}\n"))

	writeFile(t, input, good+`{"group_id":"g","reference_time":"not a time","content":"bad"}`+"\n")
	want(t, "run with a bad row", run(t, []string{"run", job}, harness.Options{}), 3, "1 quarantined")
	if q := readQuarantine(t, checkpoint); len(q) != 1 || q[0].Row != 2 {
		t.Fatalf("quarantine %+v, want row 2", q)
	}

	writeFile(t, input, good+line("g", "2024-03-02T09:00:00Z", "Alice", "Fixed."))
	res := run(t, []string{"run", job}, harness.Options{})
	want(t, "run after the fix", res, 0)
	if strings.Contains(res.Stderr, "quarantine") {
		t.Errorf("the fixed run points at a quarantine:\n%s", errLine(res.Stderr))
	}
	if q := readQuarantine(t, checkpoint); len(q) != 0 {
		t.Errorf("stale quarantine lines after the fix: %+v", q)
	}
	st := run(t, []string{"status", job}, harness.Options{})
	if !strings.Contains(st.Stdout, "quarantined  0") {
		t.Errorf("status after the fix:\n%s", st.Stdout)
	}

	writeFile(t, input, good+line("g", "2024-03-02T09:00:00Z", "Alice", "Fixed.")+`{"group_id":"g","reference_time":"2024-03-03T09:00:00Z"}`+"\n")
	want(t, "run with another bad row", run(t, []string{"run", job}, harness.Options{}), 3, "1 quarantined")
	if q := readQuarantine(t, checkpoint); len(q) != 1 || q[0].Row != 3 || q[0].Field != "content" {
		t.Errorf("quarantine %+v, want only row 3's content", q)
	}
}

// TestAtomicExport: an export that fails half-way (the disk fills up) leaves the previous
// export as it was, byte for byte, and nothing else beside it; a complete export replaces it
// with files of mode 0644. A --out holding other files is refused.
func TestAtomicExport(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := range 60 {
		in.WriteString(line("g"+string(rune('a'+i%6)), "2024-03-01T09:"+pad(i)+":00Z", "Alice",
			"Alice met Bob "+pad(i)+" times at the Kakao office in Pangyo."))
	}
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), in.String())
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("x", checkpoint, "path: "+input, ""))
	want(t, "run", run(t, []string{"run", job}, harness.Options{}), 0)

	gen1 := filepath.Join(dir, "gen1")
	want(t, "export", run(t, []string{"export", job, "--out", gen1}, harness.Options{}), 0)
	size := dirSize(t, gen1)
	for _, e := range mustReadDir(t, gen1) {
		if st, _ := os.Stat(filepath.Join(gen1, e.Name())); st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", e.Name(), st.Mode().Perm())
		}
	}
	if st, _ := os.Stat(gen1); st.Mode().Perm() != 0o755 {
		t.Errorf("the export directory has mode %v, want 0755", st.Mode().Perm())
	}

	// A second generation (more input) exported onto a file system with room for one and a
	// half: it fails half-way.
	in.WriteString(line("gz", "2024-04-01T09:00:00Z", "Carol", "Carol joined Naver."))
	writeFile(t, input, in.String())
	want(t, "second run", run(t, []string{"run", job}, harness.Options{}), 0)
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(dir, "after")
	kib := (size*3/2)/1024 + 16
	res := inNamespace(t, fmt.Sprintf(`mount -t tmpfs -o size=%dk tmpfs %[2]q && cp -a %[3]q %[2]q/out &&
		{ "$BIN" export %[4]q --out %[2]q/out; echo "exit $?"; } ; cp -a %[2]q/. %[5]q`, kib, mnt, gen1, job, after))
	if !strings.Contains(res.Stdout, "exit 1") || !strings.Contains(res.Stderr, "no space left on device") {
		t.Fatalf("the export on a full file system: %s\n%s", res.Stdout, res.Stderr)
	}
	t.Logf("export on a full file system: %s", errLine(res.Stderr))
	if line := errLine(res.Stderr); strings.Contains(line, ".export-") || !strings.Contains(line, mnt+"/out/") {
		t.Errorf("the error names a temporary path, not the file under --out: %s", line)
	}
	if err := harness.CompareDirs(gen1, filepath.Join(after, "out")); err != nil {
		t.Errorf("a failed export changed the previous one: %v", err)
	}
	if ents := mustReadDir(t, after); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the failed export left %v beside --out", names)
	}

	// A complete export replaces the previous one.
	want(t, "export again", run(t, []string{"export", job, "--out", gen1}, harness.Options{}), 0)
	gen2 := filepath.Join(dir, "gen2")
	want(t, "export to a new directory", run(t, []string{"export", job, "--out", gen2}, harness.Options{}), 0)
	if err := harness.CompareDirs(gen2, gen1); err != nil || dirSize(t, gen1) == size {
		t.Errorf("the second generation did not replace the first (%v)", err)
	}
	// A --out with files export does not write is refused and left alone.
	mine := filepath.Join(dir, "mine")
	writeFile(t, filepath.Join(mine, "notes.txt"), "keep me")
	want(t, "export into a directory of other files", run(t, []string{"export", job, "--out", mine}, harness.Options{}), 1, "notes.txt")
	if b, err := os.ReadFile(filepath.Join(mine, "notes.txt")); err != nil || string(b) != "keep me" {
		t.Errorf("the refused export touched %s: %v", mine, err)
	}
}

func pad(i int) string { return string([]byte{byte('0' + i/10), byte('0' + i%10)}) }

func mustReadDir(t *testing.T, dir string) []os.DirEntry {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ents
}

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	for _, e := range mustReadDir(t, dir) {
		st, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		n += st.Size()
	}
	return n
}
