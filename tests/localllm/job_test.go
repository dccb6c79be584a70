package localllm

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// span is the episodes [from, to) of one group of an example file, in file order.
type span struct {
	group    string
	from, to int
}

// The smoke input: the first episodes of two demo groups and testdata/names.jsonl (one person
// named two ways: the demo never makes the resolution ask the model), chosen so that, with the
// offline responder, every task of a run is asked, in either extraction mode
// (TestSmokeInputAsksEveryTask).
var (
	smokeMessages = []span{{"alice", 0, 4}}
	smokeRecords  = []span{{"acme", 0, 3}}
)

// copySpans copies the lines of src in the spans into dst.
func copySpans(t *testing.T, src, dst string, spans []span) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	seen := map[string]int{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var row struct {
			Group string `json:"group_id"`
		}
		if json.Unmarshal(sc.Bytes(), &row) != nil {
			continue
		}
		i := seen[row.Group]
		seen[row.Group]++
		for _, s := range spans {
			if s.group == row.Group && i >= s.from && i < s.to {
				out.WriteString(sc.Text() + "\n")
			}
		}
	}
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smokeJob writes the smoke job against the chat server at url serving model, with the
// response format and extraction mode given ("": the default), and returns the job file and its
// checkpoint. Summaries always ask the model (short_chars 1), a failed unit never stops the
// run, and one call is in flight at a time (llama.cpp's server answers one at a time).
func smokeJob(t *testing.T, dir, url, model, format, mode string, window int) (job, checkpoint string) {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	msgs, recs := filepath.Join(dir, "messages.jsonl"), filepath.Join(dir, "records.jsonl")
	copySpans(t, filepath.Join(root, "examples/conversations.jsonl"), msgs, smokeMessages)
	names, err := os.ReadFile("testdata/names.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(msgs, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write(names)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	copySpans(t, filepath.Join(root, "examples/records.jsonl"), recs, smokeRecords)
	checkpoint = filepath.Join(dir, "smoke.db")
	text := fmt.Sprintf(`name: smoke
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
  model: %s
  response_format: %s
  concurrency: 1
  timeout_seconds: 600
embedder:
  provider: offline
stages:
  summarize: {short_chars: 1}
  extract: {mode: %q, window: %d}
limits:
  max_failed_ratio: 1
`, checkpoint, msgs, recs, url, model, format, mode, max(window, 1))
	job = filepath.Join(dir, "smoke.yaml")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job, checkpoint
}

// runJob runs the job with a report and returns the result and the report.
func runJob(t *testing.T, bin, job, reportFile string) (harness.Result, report.Report) {
	t.Helper()
	res, err := harness.Run(t.Context(), bin, []string{"run", job, "--report", reportFile}, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(reportFile); err != nil {
		t.Fatalf("exit %d, no report: %v\n%s", res.Code, err, res.Stderr)
	}
	var rep report.Report
	harness.ReadJSON(t, reportFile, &rep)
	return res, rep
}
