package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ticketsJob writes the bundled ticket job (jobs/examples/tickets.yaml) with absolute paths and
// a store in a temp dir, runs it through the run command and returns the job file.
func ticketsJob(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "jobs/examples/tickets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	job := strings.NewReplacer("path: examples/", "path: "+root+"/examples/",
		"${BACKFILL_CHECKPOINT:-.backfill/tickets.db}", filepath.Join(dir, "tickets.db")).Replace(string(raw))
	path := filepath.Join(dir, "tickets.yaml")
	if err := os.WriteFile(path, []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	mustBackfill(t, exitOK, "run", path)
	return path
}

// TestQueryTicketHistory pins a ticket's history from the bundled change log: its states (open,
// closed, reopened, closed again) and assignees with their intervals, and what was known on
// May 7 at noon (mina still assigned: her removal at 13:10 was not known yet).
func TestQueryTicketHistory(t *testing.T) {
	job := ticketsJob(t)
	var b strings.Builder
	for _, args := range [][]string{
		{"--group", "storefront", "--entity", "Checkout button unresponsive on Safari", "--history"},
		{"--group", "storefront", "--entity", "Checkout button unresponsive on Safari", "--valid-at", "2024-05-07T12:00:00Z", "--known-at", "2024-05-07T12:00:00Z"},
		{"--group", "storefront", "--entity", "Checkout button unresponsive on Safari", "--valid-at", "2024-05-11"},
		{"--group", "storefront", "--entity", "mina", "--history"},
	} {
		fmt.Fprintf(&b, "$ backfill query JOB %s\n%s\n", strings.Join(args, " "), query(t, append([]string{job}, args...)...))
	}
	checkGolden(t, "query_tickets.golden", b.String())
}
