package badanswers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// badOptions make the stub answer a fifth of the extraction requests badly, every time; seed 5
// gives each kind at least once on the demo.
var badOptions = stub.Options{BadRate: 0.2, Seed: 5, BadTasks: extract.Tasks(extract.ModeCombined)}

func TestBadAnswersFailUnitsNotTheRun(t *testing.T) {
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	clean := startStub(t, stub.Options{})
	bad := startStub(t, badOptions)

	// The clean run: the reference.
	refJob, refCP := writeJob(t, root, dir, "clean", clean.URL)
	if res := run(t, bin, refJob, dir, "clean"); res.Code != 0 {
		t.Fatalf("clean run: exit %d\n%s", res.Code, res.Stderr)
	}

	// The run against the bad model: exit 3, the failed units recorded, the others as clean.
	job, cp := writeJob(t, root, dir, "bad", bad.URL)
	res := run(t, bin, job, dir, "bad")
	rep := readReport(t, dir, "bad")
	failed := readFailed(t, cp)
	if res.Code != 3 || len(failed) == 0 || !strings.Contains(res.Stderr, fmt.Sprintf("%d units failed", len(failed))) {
		t.Fatalf("run with bad answers: exit %d, %d failed units in the file; want exit 3 and \"N units failed\"\n%s",
			res.Code, len(failed), res.Stderr)
	}
	if rep.FailedUnits != len(failed) || rep.EpisodesWithoutExtraction != len(failed) || rep.Stages[extract.Stage].Failed != len(failed) {
		t.Errorf("report: failed_units %d, episodes_without_extraction %d, extract failed %d; want %d each",
			rep.FailedUnits, rep.EpisodesWithoutExtraction, rep.Stages[extract.Stage].Failed, len(failed))
	}
	kinds := map[string]int{}
	for _, f := range failed {
		if f.Stage != extract.Stage || f.Group == "" {
			t.Errorf("failed unit %+v: want an extract unit with its group", f)
		}
		switch {
		case strings.Contains(f.Reason, "cut at the length limit"):
			kinds[stub.BadTruncated]++
		case strings.Contains(f.Reason, "empty answer"):
			kinds[stub.BadEmpty]++
			if f.Raw != "" {
				t.Errorf("empty answer recorded with raw %q", f.Raw)
			}
		case strings.Contains(f.Reason, "parsing answer as JSON"):
			kinds[stub.BadMalformed]++
		default:
			t.Errorf("failed unit %s: unexpected reason %q", f.Unit, f.Reason)
		}
		if f.Raw == "" && !strings.Contains(f.Reason, "empty answer") {
			t.Errorf("failed unit %s: no raw answer recorded", f.Unit)
		}
	}
	for _, k := range stub.AllBadKinds() {
		if kinds[k] == 0 {
			t.Errorf("no unit failed on a %s answer (failures by kind %v): the seed no longer covers every kind", k, kinds)
		}
	}
	st, _ := bad.Stats()
	if st.BadAnswers == 0 {
		t.Error("the stub gave no bad answer")
	}
	t.Logf("bad run: exit 3, %d of %d extract units failed (by kind %v), %d bad answers given", len(failed),
		rep.Stages[extract.Stage].Units, kinds, st.BadAnswers)
	want, got := outputs(t, refCP), outputs(t, cp)
	isFailed := map[string]bool{}
	for _, f := range failed {
		isFailed[f.Unit] = true
		if got[f.Unit] != `{"entities":[],"facts":[]}` {
			t.Errorf("failed episode %s: output %s, want an empty extraction", f.Unit, got[f.Unit])
		}
	}
	for ep, body := range want {
		if !isFailed[ep] && got[ep] != body {
			t.Errorf("episode %s: output differs from the clean run's\n got %s\nwant %s", ep, got[ep], body)
		}
	}

	// The next run (the model now answers well) asks only the failed units and ends with the
	// clean run's graph.
	next := startStub(t, stub.Options{})
	job, _ = writeJob(t, root, dir, "bad", next.URL)
	if res := run(t, bin, job, dir, "bad"); res.Code != 0 {
		t.Fatalf("next run: exit %d\n%s", res.Code, res.Stderr)
	}
	rep = readReport(t, dir, "bad")
	if st := rep.Stages[extract.Stage]; st.Units != len(failed) || st.Skipped != len(want)-len(failed) || st.Failed != 0 {
		t.Errorf("next run extract: %+v; want %d units run (the failed ones), %d skipped", st, len(failed), len(want)-len(failed))
	}
	asked := 0
	for _, a := range next.Answers() {
		if a.Task == wire.TaskExtract {
			asked++
		}
	}
	t.Logf("next run: %d extraction requests for the %d failed units, extract %+v", asked, len(failed), rep.Stages[extract.Stage])
	if asked != len(failed) {
		t.Errorf("next run: %d extraction requests for %d failed units (one each)", asked, len(failed))
	}
	if lines := readFailed(t, cp); len(lines) != 0 || rep.FailedUnits != 0 {
		t.Errorf("after the next run: %d lines in the failed file, failed_units %d; want none", len(lines), rep.FailedUnits)
	}
	if err := harness.CompareDirs(export(t, bin, refJob, refCP, dir, "clean"), export(t, bin, job, cp, dir, "bad")); err != nil {
		t.Errorf("after the retry the graph differs from the clean run's: %v", err)
	}
}

func startStub(t *testing.T, opts stub.Options) *harness.Stub {
	t.Helper()
	s, err := harness.StartStub(opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// writeJob writes the demo job (both example sources) against the LLM server at url, with
// one concurrent call and no failed-ratio stop.
func writeJob(t *testing.T, root, dir, name, url string) (job, checkpoint string) {
	t.Helper()
	checkpoint = filepath.Join(dir, name+".db")
	text := fmt.Sprintf(`name: %s
checkpoint: %s
timezone: Asia/Seoul
record_time: reference
sources:
  - path: %s
    format: jsonl
    source: message
    mapping: {group: group_id, reference_time: reference_time, speaker: speaker, body: content}
  - path: %s
    format: jsonl
    source: json
    mapping: {group: group_id, reference_time: reference_time, record_key: record_key, body: record}
llm:
  provider: openai
  base_url: %s
  model: stub-chat
  concurrency: 4
embedder:
  provider: offline
limits:
  max_failed_ratio: 1
`, name, checkpoint, filepath.Join(root, "examples/conversations.jsonl"), filepath.Join(root, "examples/records.jsonl"), url)
	job = filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job, checkpoint
}

func run(t *testing.T, bin, job, dir, name string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), bin, []string{"run", job, "--report", filepath.Join(dir, name+".report.json")}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readReport(t *testing.T, dir, name string) report.Report {
	t.Helper()
	var r report.Report
	harness.ReadJSON(t, filepath.Join(dir, name+".report.json"), &r)
	return r
}

// readFailed reads <checkpoint>.failed.jsonl.
func readFailed(t *testing.T, checkpoint string) []checkpoints.FailedUnit {
	t.Helper()
	f, err := os.Open(runner.FailedFile(checkpoint))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []checkpoints.FailedUnit
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var u checkpoints.FailedUnit
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// outputs reads every stored extraction of a checkpoint by episode.
func outputs(t *testing.T, checkpoint string) map[string]string {
	t.Helper()
	ctx := context.Background()
	s := harness.OpenStore(t, checkpoint)
	defer s.Close()
	groups, err := s.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, g := range groups {
		outs, err := s.GroupOutputs(ctx, extract.Stage, g)
		if err != nil {
			t.Fatal(err)
		}
		for ep, body := range outs {
			out[ep] = string(body)
		}
	}
	return out
}

// export writes the checkpoint's graph as Parquet and returns the directory.
func export(t *testing.T, bin, job, checkpoint, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name+"-export")
	res, err := harness.Run(t.Context(), bin, []string{"export", job, "--checkpoint", checkpoint, "--format", "parquet", "--out", out}, harness.Options{})
	if err != nil || res.Code != 0 {
		t.Fatalf("export: %v, exit %d\n%s", err, res.Code, res.Stderr)
	}
	return out
}
