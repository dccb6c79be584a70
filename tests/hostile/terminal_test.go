package hostile

import (
	"path/filepath"
	"strings"
	"testing"
)

// raw reports the first control or bidirectional character in s that a terminal would act on.
func raw(s string) (string, bool) {
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return string(r), true
		}
	}
	return "", false
}

// TestTerminalOutputFromData: names, facts and group ids holding escape sequences (colour, clear
// screen, window title, an 8-bit CSI, a right-to-left override) are printed escaped by query (text
// and JSON), timeline's summary line, status, the run's table and every error message.
func TestTerminalOutputFromData(t *testing.T) {
	dir := t.TempDir()
	evil := "\x1b[31m\x1b]0;owned\x07\u009b2J\u202e" // colour, window title, 8-bit CSI, right-to-left
	group := "grp\x1b[2J"
	in := writeFile(t, filepath.Join(dir, "in.jsonl"),
		line(group, "2024-01-02T10:00:00Z", "Alice", "I moved to Berlin"+evil+" and started working at Acme with Bob.")+
			line(group, "2024-01-03T10:00:00Z", "Bob"+evil, "Alice and I went hiking with Carol"+evil+" near Munich.")+
			line("\x1b[1mbad", "not a time", "x", "y"))
	entity := "Berlin\x1b[31m\x1b]0" // the offline extraction's name: it ends at the ';'
	job := offlineJob(t, dir, "term", in, filepath.Join(dir, "term.db"), "limits:\n  max_error_ratio: 0.5\n")
	checks := []struct {
		name string
		args []string
		code int
	}{
		{"run", []string{"run", job}, 3},
		{"query", []string{"query", job}, 0},
		{"query --json", []string{"query", job, "--json"}, 0},
		{"query --entity", []string{"query", job, "--entity", entity}, 0},
		{"timeline", []string{"timeline", job, "--entity", entity, "--out", filepath.Join(dir, "tl.html")}, 0},
		{"status", []string{"status", job}, 0},
		{"status --group", []string{"status", job, "--group", group}, 0},
		{"plan", []string{"plan", job}, 0},
		{"unknown group", []string{"query", job, "--group", "\x1b[2Jnope"}, 1},
		{"unknown entity", []string{"timeline", job, "--entity", "\x1b[2Jnobody", "--out", filepath.Join(dir, "n.html")}, 1},
		{"bad --set", []string{"plan", job, "--set", "llm.model\x1b[2J=x"}, 2},
	}
	for _, c := range checks {
		res := run(t, dir, nil, c.args...)
		if res.Code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.name, res.Code, c.code, res.Stderr)
		}
		for what, out := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
			if r, found := raw(out); found {
				t.Errorf("%s: %s holds %q raw:\n%q", c.name, what, r, out)
			}
		}
		if c.name == "query --entity" && !strings.Contains(res.Stdout, `Alice lives in Berlin\x1b[31m\x1b]0.`) {
			t.Errorf("query --entity: the escaped name is not shown:\n%s", res.Stdout)
		}
		if c.name == "timeline" && !strings.Contains(res.Stderr, `wrote the timeline of Berlin\x1b[31m\x1b]0 (1 facts`) {
			t.Errorf("timeline: the summary line does not show the escaped name:\n%s", res.Stderr)
		}
	}
}
