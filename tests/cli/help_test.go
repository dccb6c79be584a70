package cli

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// commands are every command a user can run.
var commands = []string{"run", "plan", "status", "import", "query", "timeline", "export", "eval", "diff",
	"llm-stub", "version", "completion"}

// flagLine is a line of a help's flag list: the flag, its value name, and its description.
var flagLine = regexp.MustCompile(`^\s+(-\w, )?--([\w-]+)( [A-Za-z_=/|.]+)?\s{2,}(\S.*)?$`)

// TestEveryCommandHelps: `backfill CMD --help` and `backfill help CMD` exit 0 and print the
// command's usage, its examples and every flag with a description.
func TestEveryCommandHelps(t *testing.T) {
	for _, cmd := range append([]string{""}, commands...) {
		for _, args := range [][]string{{cmd, "--help"}, {"help", cmd}, {cmd, "-h"}} {
			args = strings.Fields(strings.Join(args, " "))
			res := run(t, "", nil, args...)
			if res.Code != 0 || res.Stderr != "" || !strings.Contains(res.Stdout, "Usage:") {
				t.Errorf("backfill %q: exit %d, stderr %q, stdout:\n%s", args, res.Code, res.Stderr, res.Stdout)
				continue
			}
			_, examples, _ := strings.Cut(res.Stdout, "\nExamples:\n")
			examples, _, _ = strings.Cut(examples, "\nFlags:\n")
			if cmd != "" && cmd != "version" && cmd != "completion" && !strings.Contains(examples, "  backfill "+cmd+" ") {
				t.Errorf("backfill %q has no examples:\n%s", args, res.Stdout)
			}
			_, flags, _ := strings.Cut(res.Stdout, "\nFlags:\n")
			flags, _, _ = strings.Cut(strings.TrimRight(flags, "\n"), "\n\n")
			for _, line := range strings.Split(flags, "\n") {
				if m := flagLine.FindStringSubmatch(line); m == nil || m[4] == "" {
					t.Errorf("backfill %q: flag line %q has no description", args, line)
				}
			}
		}
	}
}

// TestVersion: `make build` stamps the module version, the commit and the build date, and
// --version and the version command print them.
func TestVersion(t *testing.T) {
	built := t.TempDir() + "/backfill"
	make := exec.CommandContext(t.Context(), "make", "-s", "build", "BIN="+built)
	make.Dir = root
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	res := run(t, "", nil, "--version")
	if res.Code != 0 || !strings.HasPrefix(res.Stdout, "backfill ") {
		t.Fatalf("--version of a plain build: exit %d\n%s", res.Code, res.Stdout)
	}
	out, err := exec.CommandContext(t.Context(), built, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	again, err := exec.CommandContext(t.Context(), built, "version").Output()
	if err != nil || string(again) != string(out) {
		t.Errorf("version prints %q, --version %q (%v)", again, out, err)
	}
	if !regexp.MustCompile(`(?m)^built    \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ with go1\.`).Match(out) {
		t.Errorf("--version of make build names no build date:\n%s", out)
	}
	git := exec.CommandContext(t.Context(), "git", "-C", root, "rev-parse", "HEAD")
	if head, err := git.Output(); err == nil {
		if !strings.Contains(string(out), "commit   "+strings.TrimSpace(string(head))) {
			t.Errorf("--version does not name commit %s:\n%s", head, out)
		}
		if strings.HasPrefix(string(out), "backfill (devel)") {
			t.Errorf("--version names no module version:\n%s", out)
		}
	} else {
		t.Logf("not a git checkout (%v): the commit is not checked", err)
	}
	t.Logf("%s", out)
}

// TestCompletion: completion scripts for every shell, and completions of values: formats,
// dialects, and the groups of a job's checkpoint.
func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		if res := run(t, "", nil, "completion", shell); res.Code != 0 || !strings.Contains(res.Stdout, "backfill") {
			t.Errorf("completion %s: exit %d\n%s", shell, res.Code, res.Stderr)
		}
	}
	dir := t.TempDir()
	ck := dir + "/demo.db"
	if res := run(t, "", nil, "run", "jobs/examples/demo.yaml", "--checkpoint", ck); res.Code != 0 {
		t.Fatalf("run: exit %d\n%s", res.Code, res.Stderr)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"export", "jobs/examples/demo.yaml", "--format", ""}, []string{"parquet", "cypherl"}},
		{[]string{"export", "jobs/examples/demo.yaml", "--dialect", ""}, []string{"memgraph", "neo4j"}},
		{[]string{"query", "jobs/examples/demo.yaml", "--checkpoint", ck, "--group", ""}, []string{"alice", "jihoon"}},
		{[]string{"query", "jobs/examples/demo.yaml", "--checkpoint", ck, "--group", "ji"}, []string{"jihoon"}},
		{[]string{"ti"}, []string{"timeline"}},
	} {
		res := run(t, "", nil, append([]string{"__complete"}, c.args...)...)
		got := strings.Split(strings.TrimSpace(res.Stdout), "\n")
		for _, w := range c.want {
			if !strings.Contains("\n"+res.Stdout, "\n"+w) {
				t.Errorf("completing %q: %q, want %s among them", c.args, got, w)
			}
		}
	}
}
