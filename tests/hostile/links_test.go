package hostile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedLinks: every command that writes a file, run in a directory where someone else
// planted symbolic and hard links at the file's name and at the old fixed temporary name
// (<name>.tmp), replaces the links with its file and leaves each link's target (a file of the
// test's) as it was. import refuses an --out that is its input, whatever the spelling.
func TestPlantedLinks(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.jsonl"), conversation())
	cp := filepath.Join(dir, "store", "g.db")
	job := offlineJob(t, dir, "links", in, cp, "")
	victims := t.TempDir() // the files of someone else, which links point at
	var all []string
	victim := func(name string) string {
		p := writeFile(t, filepath.Join(victims, name), "precious "+name+"\n")
		all = append(all, p)
		return p
	}
	// plant puts a symbolic link at path and at path.tmp, each to a victim of its own; hard
	// links where the file system allows them (same device: victims and dir are both in TMPDIR).
	plant := func(path string, hard bool) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		link := os.Symlink
		if hard {
			link = os.Link
		}
		if err := link(victim(strings.ReplaceAll(path, "/", "_")), path); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim(strings.ReplaceAll(path, "/", "_")+".tmp"), path+".tmp"); err != nil {
			t.Fatal(err)
		}
	}
	regular := func(path string) {
		t.Helper()
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v %v, want the command's own regular file", path, st, err)
		}
	}

	// run: the report, the CPU profile and the quarantine and failed-units files beside the store.
	plant(cp+".quarantine.jsonl", false)
	plant(cp+".failed.jsonl", true)
	report, prof := filepath.Join(dir, "out", "report.json"), filepath.Join(dir, "out", "cpu.prof")
	plant(report, false)
	plant(prof, true)
	want(t, run(t, dir, nil, "run", job, "--report", report, "--cpuprofile", prof), 0)
	for _, p := range []string{cp + ".quarantine.jsonl", cp + ".failed.jsonl", report, prof} {
		regular(p)
	}

	outputs := []struct {
		name string
		args func(out string) []string
	}{
		{"plan --json", func(out string) []string { return []string{"plan", job, "--json", out} }},
		{"timeline --out", func(out string) []string { return []string{"timeline", job, "--entity", "Alice", "--out", out} }},
		{"eval --json", func(out string) []string { return []string{"eval", job, "--json", out} }},
		{"eval --markdown", func(out string) []string { return []string{"eval", job, "--markdown", out} }},
		{"diff --json", func(out string) []string { return []string{"diff", job, job, "--json", out} }},
		{"diff --markdown", func(out string) []string { return []string{"diff", job, job, "--markdown", out} }},
	}
	for _, o := range outputs {
		for _, hard := range []bool{false, true} {
			out := filepath.Join(dir, "out", strings.NewReplacer(" ", "", "-", "").Replace(o.name)+map[bool]string{false: ".sym", true: ".hard"}[hard])
			plant(out, hard)
			res := run(t, dir, nil, o.args(out)...)
			if res.Code != 0 {
				t.Errorf("%s: exit %d\n%s", o.name, res.Code, res.Stderr)
				continue
			}
			regular(out)
		}
	}

	// export: a link in place of --out is refused; the files of a real --out are the export's.
	outDir := filepath.Join(dir, "export")
	victimDir := t.TempDir()
	keep := writeFile(t, filepath.Join(victimDir, "episodes.parquet"), "precious export\n")
	all = append(all, keep)
	if err := os.Symlink(victimDir, outDir); err != nil {
		t.Fatal(err)
	}
	want(t, run(t, dir, nil, "export", job, "--out", outDir), 1, "not a directory")
	if err := os.Remove(outDir); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"parquet", "cypherl"} {
		want(t, run(t, dir, nil, "export", job, "--out", outDir, "--format", format), 0)
	}

	// import: links at --out, and --out naming its own input.
	locomo := locomoFile(t, filepath.Join(dir, "locomo.json"))
	imp := filepath.Join(dir, "out", "episodes.parquet")
	plant(imp, false)
	want(t, run(t, dir, nil, "import", "locomo", locomo, "--out", imp), 0)
	regular(imp)
	before, _ := os.ReadFile(locomo)
	if err := os.Symlink(locomo, filepath.Join(dir, "alias.json")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{locomo, filepath.Join(dir, "alias.json"), filepath.Join(dir, "out", "..", "locomo.json"), "./locomo.json"} {
		res := run(t, dir, nil, "import", "locomo", locomo, "--out", out)
		want(t, res, 2, "is the input file")
	}
	if after, _ := os.ReadFile(locomo); string(after) != string(before) {
		t.Error("import --out equal to its input changed the input")
	}

	for _, v := range all {
		b, err := os.ReadFile(v)
		if err != nil || !strings.HasPrefix(string(b), "precious ") {
			t.Errorf("%s, a planted link's target, changed: %q %v", v, b, err)
		}
	}
}
