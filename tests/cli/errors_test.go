package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUsageErrorsExit2 runs command lines a new user gets wrong: each exits 2 with its error (a
// mistyped command or flag with the one it most likely meant), a pointer to the command's help
// and nothing on stdout, and never claims an interrupt.
func TestUsageErrorsExit2(t *testing.T) {
	job := "jobs/examples/demo.yaml"
	ck := filepath.Join(t.TempDir(), "never.db") // no usage error may create it
	for _, c := range []struct {
		env  []string
		args []string
		want []string
	}{
		{nil, nil, []string{"Usage:"}},
		{nil, []string{"runn", job}, []string{`unknown command "runn" (did you mean run?)`}},
		{nil, []string{"frobnicate"}, []string{`unknown command "frobnicate"`, "backfill --help"}},
		{nil, []string{"run"}, []string{"want exactly one JOB.yaml", "backfill run --help"}},
		{nil, []string{"run", job, job, "--checkpoint", ck}, []string{"want exactly one JOB.yaml, got 2"}},
		{nil, []string{"run", job, "--checkpoint", ck, "--bogus"}, []string{"unknown flag: --bogus"}},
		{nil, []string{"run", job, "--chekpoint", ck}, []string{"unknown flag: --chekpoint (did you mean --checkpoint?)"}},
		{nil, []string{"query", job, "--checkpoint", ck, "--valid_at", "2024-01-01"}, []string{"unknown flag: --valid_at (did you mean --valid-at?)"}},
		{nil, []string{"run", job, "--checkpoint", ck, "--shard", "4/2"}, []string{`--shard "4/2": want I/N`}},
		{nil, []string{"run", job, "--checkpoint", ck, "--set", "llm.concurrenccy=8"},
			[]string{"unknown job key llm.concurrenccy (did you mean llm.concurrency?)"}},
		{nil, []string{"run", job, "--checkpoint", ck, "--set", "llm.concurrency=lots"},
			[]string{`llm.concurrency: "lots" is not a whole number`}},
		{nil, []string{"plan", job, "--checkpoint", ck, "--sample", "many"}, []string{`invalid argument "many" for "--sample"`}},
		{nil, []string{"query", job, "--checkpoint", ck, "--valid-at", "yesterday"}, []string{`cannot read time "yesterday"`}},
		{nil, []string{"export", job, "--checkpoint", ck}, []string{`required flag(s) "out" not set`}},
		{nil, []string{"export", job, "--checkpoint", ck, "--out", ck + ".x", "--format", "csv"}, []string{`unknown --format "csv"`}},
		{nil, []string{"timeline", job, "--checkpoint", ck}, []string{`required flag(s) "entity" not set`}},
		{nil, []string{"eval", job, "--checkpoint", ck, "--qa"}, []string{"--qa needs --dataset"}},
		{nil, []string{"diff", job}, []string{"want two graphs"}},
		{nil, []string{"import", "csv", "x.csv", "--out", ck + ".parquet"}, []string{`unknown format "csv"`}},
		{nil, []string{"llm-stub", "--fault-rate", "2"}, []string{"--fault-rate 2: want a number from 0 to 1"}},
		{[]string{"BACKFILL_LOG_LEVEL=loud"}, []string{"status", job, "--checkpoint", ck}, []string{`BACKFILL_LOG_LEVEL="loud": want debug, info, warn or error`}},
	} {
		res := run(t, "", c.env, c.args...)
		if res.Code != 2 {
			t.Errorf("backfill %q: exit %d, want 2\n%s", c.args, res.Code, res.Stderr)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(res.Stderr, w) {
				t.Errorf("backfill %q: stderr does not say %q:\n%s", c.args, w, res.Stderr)
			}
		}
		if strings.Contains(res.Stderr, "interrupted:") || strings.Contains(res.Stderr, "interrupted;") || res.Stdout != "" {
			t.Errorf("backfill %q: stdout %q, stderr:\n%s", c.args, res.Stdout, res.Stderr)
		}
		// Every usage error, a --set's too, points to the command's help.
		if len(c.args) > 0 && !strings.Contains(res.Stderr, "--help' for usage") {
			t.Errorf("backfill %q: no pointer to --help:\n%s", c.args, res.Stderr)
		}
	}
	if m, _ := filepath.Glob(ck + "*"); len(m) > 0 {
		t.Errorf("usage errors created %v", m)
	}
}

// TestMissingFileNamedOnce: a file that does not exist is named once in the error, and the
// command exits 1.
func TestMissingFileNamedOnce(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "demo.db")
	if res := run(t, "", nil, "run", "jobs/examples/demo.yaml", "--checkpoint", ck); res.Code != 0 {
		t.Fatalf("run: exit %d\n%s", res.Code, res.Stderr)
	}
	missing := filepath.Join(dir, "missing")
	for _, args := range [][]string{
		{"run", missing + ".yaml"},
		{"plan", missing + ".yaml"},
		{"status", "jobs/examples/demo.yaml", "--checkpoint", missing + ".db"},
		{"query", "jobs/examples/demo.yaml", "--checkpoint", missing + ".db"},
		{"timeline", "jobs/examples/demo.yaml", "--checkpoint", missing + ".db", "--entity", "Alice"},
		{"export", "jobs/examples/demo.yaml", "--checkpoint", missing + ".db", "--out", filepath.Join(dir, "out")},
		{"eval", "jobs/examples/demo.yaml", "--checkpoint", ck, "--gold", missing + ".yaml"},
		{"eval", "jobs/examples/demo.yaml", "--checkpoint", ck, "--dataset", "locomo", missing + ".json"},
		{"diff", "jobs/examples/demo.yaml@" + missing + ".db", "jobs/examples/demo.yaml@" + ck},
		{"import", "locomo", missing + ".json", "--out", filepath.Join(dir, "x.parquet")},
	} {
		res := run(t, "", nil, args...)
		if res.Code != 1 || strings.Count(res.Stderr, missing) != 1 || !strings.Contains(res.Stderr, "no such file") {
			t.Errorf("backfill %q: exit %d, want 1 and %s named once:\n%s", args, res.Code, missing, res.Stderr)
		}
	}
}
