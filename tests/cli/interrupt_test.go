package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestInterruptedRunWithAnotherModel: the demo runs to its end with the offline responder, then
// again through a stub model (another model: every extraction's fingerprint changes) in two-call
// mode, interrupted by SIGINT during extract: a unit whose second call the drain refuses is left
// uncommitted. The interrupted run's report counts what this run committed: the extract
// stage's units and its units by how they were planned both equal the units whose fingerprint
// the run changed in the store, and the report names the stage it stopped in instead of showing
// the earlier run's temporal counts as its own (issue 36, item 6). status, given the stub's
// flags, counts as done only the units of this run, in the store and in a group (item 4), and
// plan says its ratios are not the offline graph's (item 5).
func TestInterruptedRunWithAnotherModel(t *testing.T) {
	dir := t.TempDir()
	checkpoint := filepath.Join(dir, "demo.db")
	if res := run(t, "", nil, "run", "jobs/examples/demo.yaml", "--checkpoint", checkpoint); res.Code != 0 {
		t.Fatalf("the offline run: exit %d\n%s", res.Code, tail(res.Stderr))
	}
	before := fingerprints(t, checkpoint)

	s, err := harness.StartStub(stub.Options{}, func(string) time.Duration { return 300 * time.Millisecond })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	model := []string{"--set", "llm.provider=openai", "--set", "llm.base_url=" + s.URL, "--set", "llm.model=stub",
		"--set", "llm.concurrency=2", "--set", "stages.extract.mode=two_call"}
	reportFile := filepath.Join(dir, "report.json")
	p, err := harness.Start(t.Context(), bin, append([]string{"run", "jobs/examples/demo.yaml", "--checkpoint", checkpoint,
		"--report", reportFile}, model...), harness.Options{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(time.Minute); len(s.Answers()) < 6 && time.Now().Before(end); {
		time.Sleep(50 * time.Millisecond)
	}
	_ = p.Signal(os.Interrupt)
	res, err := p.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 130 {
		t.Fatalf("SIGINT during extract: exit %d, want 130\n%s", res.Code, tail(res.Stderr))
	}
	raw, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	after := fingerprints(t, checkpoint)
	changed := 0
	for unit, fp := range after {
		if before[unit] != fp {
			changed++
		}
	}
	byKind := 0
	for _, n := range rep.ExtractUnits {
		byKind += n
	}
	if changed == 0 || changed == len(after) {
		t.Fatalf("%d of %d extract units changed: the SIGINT came too early or too late\n%s", changed, len(after), tail(res.Stderr))
	}
	if st := rep.Stages["extract"]; st.Units != changed || byKind != changed {
		t.Errorf("the report counts %d extract units (%v by how they were planned); the run committed %d", st.Units, rep.ExtractUnits, changed)
	}
	if rep.StoppedAt != "extract" || rep.Temporal != nil || rep.CommunitiesByGroup != nil {
		t.Errorf("report: stopped at %q, temporal %+v, communities %v; want extract and no earlier run's counts",
			rep.StoppedAt, rep.Temporal, rep.CommunitiesByGroup)
	}
	if !regexp.MustCompile(`(?m)^stopped +in extract: `).MatchString(res.Stdout) || strings.Contains(res.Stdout, "\ntemporal ") {
		t.Errorf("the summary does not say where the run stopped, or shows the earlier run's temporal counts:\n%s", res.Stdout)
	}

	// status judges the units by the job's current settings, as plan and run do: with the stub's
	// flags the units this run committed are done and the offline run's are outdated; without
	// them it is the other way round.
	for _, c := range []struct {
		name        string
		flags       []string
		done, stale int
	}{{"the stub's flags", model, changed, len(after) - changed}, {"the offline job", nil, len(after) - changed, changed}} {
		res := run(t, "", nil, append([]string{"status", "jobs/examples/demo.yaml", "--checkpoint", checkpoint}, c.flags...)...)
		m := regexp.MustCompile(`(?m)^extract +(\d+) +0 +(\d+) +56$`).FindStringSubmatch(res.Stdout)
		if res.Code != 0 || m == nil || m[1] != strconv.Itoa(c.done) || m[2] != strconv.Itoa(c.stale) {
			t.Errorf("status with %s: want extract %d done, %d outdated of 56 (exit %d)\n%s", c.name, c.done, c.stale, res.Code, res.Stdout)
		}
	}
	// --group alice counts that group's units the same way.
	store, err := checkpoints.OpenReadOnly(t.Context(), checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := store.EpisodeFingerprints(t.Context(), "extract", "alice")
	store.Close()
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for unit, fp := range alice {
		if before[unit] != fp {
			mine++
		}
	}
	res = run(t, "", nil, append([]string{"status", "jobs/examples/demo.yaml", "--checkpoint", checkpoint, "--group", "alice"}, model...)...)
	if m := regexp.MustCompile(`(?m)^extract +(\d+) +0 +(\d+) +(\d+)$`).FindStringSubmatch(res.Stdout); res.Code != 0 || m == nil ||
		m[1] != strconv.Itoa(mine) || m[2] != strconv.Itoa(len(alice)-mine) || m[3] != strconv.Itoa(len(alice)) {
		t.Errorf("status --group alice with the stub's flags: want extract %d done, %d outdated of %d (exit %d)\n%s", mine, len(alice)-mine, len(alice), res.Code, res.Stdout)
	}

	// plan with the stub's flags does not estimate from the offline run's graph without saying so
	// (item 5): no group was resolved under the stub's settings.
	if res := run(t, "", nil, append([]string{"plan", "jobs/examples/demo.yaml", "--checkpoint", checkpoint}, model...)...); res.Code != 0 ||
		!regexp.MustCompile(`(?m)^assumptions +defaults \(the checkpoint's graph was built under other settings\): `).MatchString(res.Stdout) {
		t.Errorf("plan with the stub's flags after the offline run: exit %d\n%s", res.Code, res.Stdout)
	}
	t.Logf("SIGINT after %d stub answers: %d of %d extract units committed, report %v", len(s.Answers()), changed, len(after), rep.ExtractUnits)
}

// fingerprints reads the extract units' fingerprints of a checkpoint store.
func fingerprints(t *testing.T, path string) map[string]string {
	t.Helper()
	store, err := checkpoints.OpenReadOnly(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	fps, err := store.Fingerprints(t.Context(), "extract")
	if err != nil {
		t.Fatal(err)
	}
	return fps
}
