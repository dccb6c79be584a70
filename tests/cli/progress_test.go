package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// progressLine is a progress line of the extract stage, with its units done and its rate.
var progressLine = regexp.MustCompile(`(?m)^time=\S+ level=INFO msg=progress stage=extract done=(\d+) total=56 rate_per_s=(\S+)`)

// TestProgressOffTerminal: off a terminal, `run` logs a progress line every 5 s while a stage
// runs, with a rate that is not 0 once units are
// done (a slow model finishes less than one a second). The demo runs against llm-stub at 4 s a
// request, one at a time, until three lines of the extract stage are out; then a SIGINT drains it.
func TestProgressOffTerminal(t *testing.T) {
	stub, url, err := harness.StartLLMStub(t.Context(), bin, "--latency", "4s")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stub.Signal(os.Interrupt)
		_, _ = stub.Wait()
	}()
	p, err := harness.Start(t.Context(), bin, []string{"run", "jobs/examples/demo.yaml",
		"--checkpoint", filepath.Join(t.TempDir(), "demo.db"), "--set", "llm.provider=openai",
		"--set", "llm.base_url=" + url, "--set", "llm.model=stub", "--set", "llm.concurrency=1"}, harness.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	seen := p.WaitLines(t.Context(), "msg=progress stage=extract", 3)
	_ = p.Signal(os.Interrupt)
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatalf("fewer than 3 progress lines of the extract stage (exit %d):\n%s", res.Code, tail(res.Stderr))
	}
	lines := progressLine.FindAllStringSubmatch(res.Stderr, -1)
	if len(lines) < 3 {
		t.Fatalf("progress lines without done, total 56 and rate:\n%s", strings.Join(grepLines(res.Stderr, "msg=progress"), "\n"))
	}
	last := lines[len(lines)-1]
	done, _ := strconv.Atoi(last[1])
	rate, err := strconv.ParseFloat(last[2], 64)
	if done == 0 || err != nil || rate <= 0 || rate >= 1 {
		t.Errorf("the last progress line says %s units done at %s per second; want some done, at less than 1 a second", last[1], last[2])
	}
	t.Logf("%s", strings.Join(grepLines(res.Stderr, "msg=progress"), "\n"))
}

// grepLines returns the lines of s that contain substr.
func grepLines(s, substr string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return out
}
