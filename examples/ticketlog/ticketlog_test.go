package ticketlog

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../tickets.jsonl")

// TestFileIsTheStory checks that examples/tickets.jsonl is what Write renders (with -update it
// rewrites the file), and that the log has what the example promises: at least 40 records
// of several tickets, state and assignee changes, comments, one line delivered late.
func TestFileIsTheStory(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf); err != nil {
		t.Fatal(err)
	}
	const file = "../tickets.jsonl"
	if *update {
		if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatalf("%s differs from the story; run go test ./examples/ticketlog -update", file)
	}
	lines := strings.Split(strings.TrimSpace(string(got)), "\n")
	if len(lines) < 40 {
		t.Errorf("%d records, want at least 40", len(lines))
	}
	count := map[string]int{}
	late := 0
	for i, e := range events {
		count[e.action]++
		if i > 0 && e.at < events[i-1].at && e.ticket == 0 {
			late++
		}
	}
	if count["closed"] < 3 || count["reopened"] < 1 || count["unassigned"] < 2 || count["commented"] < 8 || late != 1 {
		t.Errorf("the story lacks what the example promises: %v, late lines %d", count, late)
	}
	for _, l := range lines {
		if n := len(l); n < 6<<10 || n > 24<<10 {
			t.Errorf("a record of %d bytes; the example's records are webhook-sized (6-24 KB)", n)
			break
		}
	}
}
