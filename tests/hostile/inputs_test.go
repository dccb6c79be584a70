package hostile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestDamagedInputs: every command that reads an input file the tool did not write (run and plan
// through a job's source, import) is given each format's file empty, truncated at several points
// and replaced by garbage: nothing crashes, and each ends with exit 1 naming the file, or exit 3
// (2 for plan, which stops before it judges rows) with the bad rows quarantined under the file's
// name. A JSON Lines body nested 9,000 levels deep is quarantined with the bound it passes.
func TestDamagedInputs(t *testing.T) {
	dir := t.TempDir()
	locomo := locomoFile(t, filepath.Join(dir, "ok.locomo.json"))
	parquet := filepath.Join(dir, "ok.parquet")
	want(t, run(t, dir, nil, "import", "locomo", locomo, "--out", parquet), 0)
	lme := writeFile(t, filepath.Join(dir, "ok.lme.json"), `[{"question_id":"q1","question":"Where?","answer":"Berlin",
  "haystack_session_ids":["s1"],"haystack_dates":["2023/05/20 (Sat) 02:21"],
  "haystack_sessions":[[{"role":"user","content":"I moved to Berlin last week."},{"role":"assistant","content":"Nice!"}]]}]`)
	jsonl := writeFile(t, filepath.Join(dir, "ok.jsonl"), conversation())
	formats := []struct{ format, path string }{{"jsonl", jsonl}, {"parquet", parquet}, {"locomo", locomo}, {"longmemeval", lme}}
	rng := rand.New(rand.NewPCG(35, 35))
	n := 0
	for _, f := range formats {
		good := readFileT(t, f.path)
		variants := map[string][]byte{"empty": nil}
		for _, pct := range []int{1, 50, 99} {
			variants[fmt.Sprintf("truncated%d", pct)] = good[:len(good)*pct/100]
		}
		garbage := make([]byte, 4096)
		for i := range garbage {
			garbage[i] = byte(rng.IntN(256))
		}
		variants["garbage"] = garbage
		flipped := append([]byte(nil), good...)
		for range 16 {
			flipped[rng.IntN(len(flipped))] ^= byte(1 + rng.IntN(255))
		}
		variants["flipped"] = flipped
		for name, body := range variants {
			path := writeFile(t, filepath.Join(dir, f.format, name+"."+map[string]string{"jsonl": "jsonl", "parquet": "parquet"}[f.format]+"x"), "")
			path = strings.TrimSuffix(path, "x")
			if f.format == "locomo" || f.format == "longmemeval" {
				path += "json"
			}
			if err := os.WriteFile(path, body, 0o644); err != nil {
				t.Fatal(err)
			}
			cp := filepath.Join(dir, f.format, name+".db")
			job := writeFile(t, filepath.Join(dir, f.format, name+".yaml"), "name: d\ncheckpoint: "+cp+
				"\nrecord_time: reference\nsources:\n  - path: "+path+"\n    format: "+f.format+"\nlimits:\n  max_error_ratio: 1\n")
			base := filepath.Base(path)
			for _, args := range [][]string{{"run", job}, {"plan", job}} {
				n++
				res := run(t, dir, nil, args...)
				switch {
				case res.Code == 1 && strings.Contains(res.Stderr, base):
				case res.Code == 0 && name == "flipped": // the flips hit nothing that matters
				case res.Code == 0 && name == "empty" && f.format == "jsonl" && strings.Contains(res.Stderr, "source has no rows"):
				case res.Code == 3 && strings.Contains(res.Stderr, base): // rows quarantined under the file's name
				case res.Code == 0 && args[0] == "plan" && strings.Contains(res.Stdout, "rows quarantined"):
				default:
					t.Errorf("%s %s/%s: exit %d, want 1 or 3 naming %s\nstdout:\n%s\nstderr:\n%s", args[0], f.format, name, res.Code, base, res.Stdout, res.Stderr)
				}
			}
			if f.format == "locomo" || f.format == "longmemeval" {
				n++
				res := run(t, dir, nil, "import", f.format, path, "--out", filepath.Join(dir, f.format, name+".out.parquet"))
				if res.Code != 0 && (res.Code != 1 && res.Code != 3 || !strings.Contains(res.Stderr, base)) {
					t.Errorf("import %s/%s: exit %d, want 1 or 3 naming %s\n%s", f.format, name, res.Code, base, res.Stderr)
				}
			}
		}
	}
	t.Logf("%d commands on damaged inputs", n)

	deep := strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)
	in := writeFile(t, filepath.Join(dir, "deep.jsonl"), conversation()+
		`{"group_id":"alice","reference_time":"2024-05-01T00:00:00Z","content":`+deep+"}\n")
	cp := filepath.Join(dir, "deep.db")
	job := offlineJob(t, dir, "deep", in, cp, "limits:\n  max_error_ratio: 0.5\n")
	res := run(t, dir, nil, "run", job)
	want(t, res, 3, "finished with 1 quarantined rows")
	q, err := harness.ReadQuarantine(cp)
	if err != nil || len(q) != 1 || q[0].Row != 6 || !strings.Contains(q[0].Reason, "nested more than 64 levels") {
		t.Errorf("quarantine %+v (%v), want row 6 nested too deep", q, err)
	}
}
