package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoAndItsFollowUps runs `make demo` (the package's one demo run, sharedDemo) in a copy of
// the repository: it tells the temporal story with queries labelled by their times, the past --known-at
// answering otherwise than now, writes both timelines into the job's own checkpoint directory,
// and every follow-up command it prints runs as printed, without --checkpoint.
func TestDemoAndItsFollowUps(t *testing.T) {
	dir, res := sharedDemo(t)
	if res.Code != 0 {
		t.Fatalf("make demo: exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	out := res.Stdout
	if strings.Contains(res.Stderr, "interrupted") {
		t.Errorf("the demo claims an interrupt:\n%s", res.Stderr)
	}
	q := sections(out)
	now := q["$ backfill query jobs/examples/demo.yaml --group alice --entity Alice --valid-at 2024-04-01"]
	past := q["$ backfill query jobs/examples/demo.yaml --group alice --entity Alice --valid-at 2024-04-01 --known-at 2024-03-01"]
	if !strings.Contains(now, "# valid at 2024-04-01, as known now") || !strings.Contains(now, "Alice works at Naver") || strings.Contains(now, "Kakao") {
		t.Errorf("valid at 2024-04-01 as known now:\n%s", now)
	}
	if !strings.Contains(past, "as the system believed on 2024-03-01") || !strings.Contains(past, "Alice works at Kakao.") || strings.Contains(past, "Naver") {
		t.Errorf("valid at 2024-04-01 as known on 2024-03-01:\n%s", past)
	}
	if k := q["$ backfill query jobs/examples/demo.yaml --group jihoon --entity 지훈 --valid-at 2024-02-01"]; !strings.Contains(k, "지훈은 카카오에서 일한다.") {
		t.Errorf("지훈 at 2024-02-01:\n%s", k)
	}
	for _, f := range []string{"demo.db", "report.json", "export/facts.parquet", "eval.md", "timeline-alice.html", "timeline-jihoon.html"} {
		if st, err := os.Stat(filepath.Join(dir, ".backfill/demo", f)); err != nil || st.Size() == 0 {
			t.Errorf("the demo did not write .backfill/demo/%s: %v", f, err)
		}
	}
	if !strings.Contains(out, "gold examples/gold/demo.yaml") {
		t.Errorf("the demo does not end with its eval summary:\n%s", out)
	}
	_, next, ok := strings.Cut(out, "Try next")
	if !ok {
		t.Fatalf("the demo prints no follow-up commands:\n%s", out)
	}
	n := 0
	for _, line := range strings.Split(next, "\n") {
		args, ok := strings.CutPrefix(line, "  bin/backfill ")
		if !ok {
			continue
		}
		n++
		if strings.ContainsAny(args, `"'$`) {
			t.Errorf("follow-up %q needs a shell to read it", line)
			continue
		}
		res := run(t, dir, nil, strings.Fields(args)...)
		if res.Code != 0 || res.Stdout == "" && !strings.Contains(args, "--out") {
			t.Errorf("follow-up %q: exit %d, stdout %q\n%s", line, res.Code, res.Stdout, res.Stderr)
		}
	}
	if n < 5 {
		t.Errorf("%d follow-up commands, want the handful the demo prints:\n%s", n, next)
	}
}

// sections splits the demo's output at its "$ backfill query" lines: command line → what follows.
func sections(out string) map[string]string {
	m := map[string]string{}
	var cur string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "$ backfill query ") {
			cur = line
			continue
		}
		if cur != "" {
			m[cur] += line + "\n"
		}
	}
	return m
}

// TestQueryThatMatchesNoFact: a query whose answer is empty still exits 0 with the empty context
// block a program expects, and says on stderr that nothing matched and what it asked; a query
// that matches says nothing of the kind.
func TestQueryThatMatchesNoFact(t *testing.T) {
	dir, _ := sharedDemo(t)
	res := run(t, dir, nil, "query", "jobs/examples/demo.yaml", "--group", "alice", "--entity", "Alice",
		"--valid-at", "2099-01-01", "--known-at", "2001-01-01")
	if res.Code != 0 || res.Stdout != "<FACTS>\n</FACTS>\n" ||
		!strings.Contains(res.Stderr, "no fact of Alice in group alice was valid at 2099-01-01T00:00:00Z as known at 2001-01-01T00:00:00Z") {
		t.Errorf("a query matching nothing: exit %d, stdout %q, stderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
	res = run(t, dir, nil, "query", "jobs/examples/demo.yaml", "--entity", "Alice", "--history", "--known-at", "2001-01-01")
	if res.Code != 0 || !strings.Contains(res.Stderr, "no fact of Alice was known at 2001-01-01T00:00:00Z") {
		t.Errorf("a --history query matching nothing: exit %d, stderr:\n%s", res.Code, res.Stderr)
	}
	res = run(t, dir, nil, "query", "jobs/examples/demo.yaml", "--group", "alice", "--entity", "Alice")
	if res.Code != 0 || !strings.Contains(res.Stdout, "Alice works at Naver") || strings.Contains(res.Stderr, "no fact") {
		t.Errorf("a query with facts: exit %d, stdout %q, stderr:\n%s", res.Code, res.Stdout, res.Stderr)
	}
}
