package integrity

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/tests/harness"
)

// hangulID is the n-th id of three Hangul syllables: every such id reads "___" once its runes
// are replaced, so only the hash in the mapped id tells them apart.
func hangulID(n int) string {
	return string([]rune{0xAC00 + rune(n%11172), 0xAC00 + rune(n/11172%11172), 0xAC00 + rune(n/11172/11172%11172)})
}

// TestMappedGroupsAreDistinct plans a job of 100,000 episodes in 100,000 distinct non-ASCII
// groups: the plan (which stages the input as a run does) must count 100,000 groups. The ids
// include 75462 and 81431, which the former 32-bit mapping merged into one group.
func TestMappedGroupsAreDistinct(t *testing.T) {
	const n = 100_000
	old := func(s string) string { // the former mapping: 32 bits of the hash
		sum := sha256.Sum256([]byte(s))
		return "___-" + hex.EncodeToString(sum[:4])
	}
	if old(hangulID(75462)) != old(hangulID(81431)) {
		t.Fatal("precondition: ids 75462 and 81431 no longer collide under the 32-bit mapping")
	}
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "groups.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		w.WriteString(line(hangulID(i), "2024-03-01T09:00:00Z", "", "x"))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("groups", filepath.Join(dir, "cp.db"), "path: "+f.Name(), ""))
	planFile := filepath.Join(dir, "plan.json")
	want(t, "plan", run(t, []string{"plan", job, "--json", planFile, "--sample", "10"}, harness.Options{}), 0)
	b, err := os.ReadFile(planFile)
	if err != nil {
		t.Fatal(err)
	}
	var plan struct{ Episodes, Groups, Quarantined int }
	if err := json.Unmarshal(b, &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Episodes != n || plan.Groups != n || plan.Quarantined != 0 {
		t.Errorf("plan: %d episodes in %d groups, %d quarantined; want %d in %d groups", plan.Episodes, plan.Groups, plan.Quarantined, n, n)
	}
}

// TestGroupAsWritten: a group id outside [A-Za-z0-9_-] works as written wherever the CLI takes
// a group (query --group, status --group), the report and status show both forms, and a row
// that writes another group's mapped id verbatim is quarantined instead of joining that group.
func TestGroupAsWritten(t *testing.T) {
	dir := t.TempDir()
	const korean, email = "김철수", "josé@example.com"
	mappedEmail := loaders.MapGroupID(email)
	input := writeFile(t, filepath.Join(dir, "in.jsonl"),
		line(korean, "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao.")+
			line(korean, "2024-04-01T09:00:00Z", "Alice", "Alice moved to Naver.")+
			line(email, "2024-03-01T09:00:00Z", "Bob", "Bob lives in Busan.")+
			line(mappedEmail, "2024-03-02T09:00:00Z", "Eve", "Eve writes the mapped id as her group."))
	checkpoint := filepath.Join(dir, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("groups", checkpoint, "path: "+input, "limits: {max_error_ratio: 1}\n"))
	report := filepath.Join(dir, "report.json")
	want(t, "run", run(t, []string{"run", job, "--report", report}, harness.Options{}), 3)

	q := readQuarantine(t, checkpoint)
	if len(q) != 1 || q[0].Row != 4 || q[0].Field != "group_id" || !strings.Contains(q[0].Reason, email) {
		t.Errorf("quarantine %+v, want row 4's group id (the mapped id of %q written verbatim)", q, email)
	}
	rep := readReport(t, report)
	mapped, _ := rep["mapped_groups"].(map[string]any)
	if rep["groups_mapped"] != float64(2) || mapped[loaders.MapGroupID(korean)] != korean || mapped[mappedEmail] != email {
		t.Errorf("report: groups_mapped %v, mapped_groups %v; want both groups with both forms", rep["groups_mapped"], mapped)
	}

	st := run(t, []string{"status", job, "--group", korean}, harness.Options{})
	want(t, "status --group as written", st, 0)
	for _, s := range []string{loaders.MapGroupID(korean), "written as  " + korean, "episodes    2"} {
		if !strings.Contains(st.Stdout, s) {
			t.Errorf("status --group %s does not show %q:\n%s", korean, s, st.Stdout)
		}
	}
	want(t, "status --group stored id", run(t, []string{"status", job, "--group", loaders.MapGroupID(korean)}, harness.Options{}), 0)

	res := run(t, []string{"query", job, "--group", korean, "--json"}, harness.Options{})
	want(t, "query --group as written", res, 0)
	var facts []struct {
		GroupID string `json:"group_id"`
		Written string `json:"group_id_as_written"`
		Fact    string `json:"fact"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &facts); err != nil {
		t.Fatal(err)
	}
	if len(facts) == 0 {
		t.Fatalf("query --group %s found no facts", korean)
	}
	for _, f := range facts {
		if f.GroupID != loaders.MapGroupID(korean) || f.Written != korean {
			t.Errorf("fact %q: group %q written %q; want %q written %q", f.Fact, f.GroupID, f.Written, loaders.MapGroupID(korean), korean)
		}
	}
	want(t, "query --group unknown", run(t, []string{"query", job, "--group", "nobody here"}, harness.Options{}), 1, "nobody here", "is not in checkpoint")
	fmt.Fprint(os.Stderr) // keep fmt for debugging output
}
