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

// resumedLine is a progress line of a resumed extract stage: units done (those done before
// included), the rate of this run's units, the stage's and the run's time left, the units done
// before.
var resumedLine = regexp.MustCompile(`(?m)^time=\S+ level=INFO msg=progress stage=extract done=(\d+) total=56 rate_per_s=(\S+) eta=(\S+) run_eta=(\S+) done_before=(\d+)$`)

// TestResumeTellsTheTruth: a run interrupted in extract, then resumed against a slow model,
// then completed. status says the first run was interrupted in extract and that no run has
// completed; the resumed run's progress counts the units done before apart, rates only its own
// (4 s a request: well under 2 units a second, where counting the units done before would give
// several) in plain decimals, and gives the stage's and the run's time left; after the complete
// run status says so and names the model and prompt set that built the store, and plan says
// there is nothing to do.
func TestResumeTellsTheTruth(t *testing.T) {
	fast, fastURL, err := harness.StartLLMStub(t.Context(), bin, "--latency", "200ms")
	if err != nil {
		t.Fatal(err)
	}
	slow, slowURL, err := harness.StartLLMStub(t.Context(), bin, "--latency", "4s")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, p := range []*harness.Proc{fast, slow} {
			_ = p.Signal(os.Interrupt)
			_, _ = p.Wait()
		}
	}()
	ck := filepath.Join(t.TempDir(), "demo.db")
	args := func(cmd, url string, more ...string) []string {
		return append([]string{cmd, "jobs/examples/demo.yaml", "--checkpoint", ck, "--set", "llm.provider=openai",
			"--set", "llm.base_url=" + url, "--set", "llm.model=stub"}, more...)
	}
	interrupted := func(url string, lines int) harness.Result {
		t.Helper()
		p, err := harness.Start(t.Context(), bin, args("run", url, "--set", "llm.concurrency=1"), harness.Options{Dir: root})
		if err != nil {
			t.Fatal(err)
		}
		seen := p.WaitLines(t.Context(), "msg=progress stage=extract", lines)
		_ = p.Signal(os.Interrupt)
		res, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if !seen || res.Code != 130 {
			t.Fatalf("fewer than %d progress lines of extract, or not interrupted (exit %d):\n%s", lines, res.Code, tail(res.Stderr))
		}
		return res
	}
	status := func() string {
		t.Helper()
		res := run(t, "", nil, args("status", fastURL)...)
		if res.Code != 0 {
			t.Fatalf("status: exit %d\n%s", res.Code, res.Stderr)
		}
		return res.Stdout
	}

	interrupted(fastURL, 1)
	if s := status(); !regexp.MustCompile(`(?m)^last run +\S+ \S+ UTC, interrupted in stage extract \(run again to resume\)$`).MatchString(s) ||
		!regexp.MustCompile(`(?m)^built with +no run has completed$`).MatchString(s) {
		t.Errorf("status after the interrupted run:\n%s", s)
	}

	res := interrupted(slowURL, 2)
	lines := resumedLine.FindAllStringSubmatch(res.Stderr, -1)
	if len(lines) < 2 {
		t.Fatalf("no progress line with done, total, rate, eta, run_eta and done_before:\n%s", strings.Join(grepLines(res.Stderr, "msg=progress"), "\n"))
	}
	last := lines[len(lines)-1]
	done, _ := strconv.Atoi(last[1])
	before, _ := strconv.Atoi(last[5])
	rate, err := strconv.ParseFloat(last[2], 64)
	if before < 10 || done <= before || err != nil || rate <= 0 || rate >= 2 || strings.ContainsAny(last[2], "eE") {
		t.Errorf("resumed: %d done, %d of them before, at %q a second; want more than 10 before, some now, under 2 a second in plain decimals", done, before, last[2])
	}
	t.Logf("%s", strings.Join(grepLines(res.Stderr, "msg=progress"), "\n"))

	if res := run(t, "", nil, args("run", fastURL, "--set", "llm.concurrency=8")...); res.Code != 0 {
		t.Fatalf("complete run: exit %d\n%s", res.Code, tail(res.Stderr))
	}
	if s := status(); !regexp.MustCompile(`(?m)^last run +\S+ \S+ UTC, complete$`).MatchString(s) ||
		!regexp.MustCompile(`(?m)^built with +model stub \(openai, temperature 0, json_schema, online; extraction combined\), prompts [0-9a-f]{12} \(built in\); embeddings hashing-v1 \(offline, 256 dimensions\)`).MatchString(s) {
		t.Errorf("status after the complete run:\n%s", s)
	}
	plan := run(t, "", nil, args("plan", fastURL)...)
	if plan.Code != 0 || !regexp.MustCompile(`(?m)^to do +nothing: all 86 units of the stages are done`).MatchString(plan.Stdout) ||
		!regexp.MustCompile(`(?m)^total +86 +86 +0 `).MatchString(plan.Stdout) {
		t.Errorf("plan after the complete run: exit %d\n%s", plan.Code, plan.Stdout)
	}
}
