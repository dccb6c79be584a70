package forget

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/sinks/parquet"
	"github.com/tkgraph/backfill/tests/harness"
)

// planted is the unique string in Zora's messages: after `forget --speaker Zora` no byte of it
// may be left anywhere.
const planted = "Qzarbelline"

// row is one input line. Its name is its own (not the default, the file and row number, which
// removing rows shifts), so a run on the input without some rows names the others alike.
type row struct {
	Name    string `json:"name"`
	Group   string `json:"group_id"`
	Time    string `json:"reference_time"`
	Speaker string `json:"speaker"`
	Content string `json:"content"`
}

// conversations are the input: three groups of two speakers; Zora (group g2) speaks of the
// planted string, Milo answers her, and one of Zora's rows has a time no loader reads (it is
// quarantined with its raw text). "Milo works at Brightway" is said by both, so that fact
// stays when Zora is forgotten.
func conversations() []row {
	base := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	lines := map[string][][2]string{
		"g1": {{"Ann", "Hi Bob, how are you?"}, {"Bob", "I work at Lumen Labs now."}, {"Ann", "I live in Porto."},
			{"Bob", "I moved to Lyon last year."}, {"Ann", "I went to Madrid on February 2."}, {"Bob", "I plan to travel to Seoul in May."},
			{"Ann", "I work at Harbor Bank."}, {"Bob", "Ann, my favorite drink is green tea."}},
		"g2": {{"Milo", "Hi Zora, long time no see!"}, {"Zora", "I work at " + planted + " now, mostly on payments."},
			{"Milo", "I work at Brightway."}, {"Zora", "Milo works at Brightway, right? " + planted + " is close to it."},
			{"Zora", "I live in " + planted + " Heights."}, {"Milo", "I live in Oslo."},
			{"Zora", "My favorite drink is " + planted + " tea."}, {"Milo", "Zora, I went to Bergen on February 20."},
			{"Milo", "I plan to travel to Rome in June."}, {"Zora", "I don't work at " + planted + " anymore, I joined Kestrel."},
			{"Milo", "I work at Brightway since 2020."}},
		"g3": {{"Kim", "Hello Lee!"}, {"Lee", "I work at Northwind."}, {"Kim", "I live in Busan."},
			{"Lee", "I moved to Daegu last month."}, {"Kim", "I work at Seaside Foods."}, {"Lee", "Kim, I went to Jeju on January 5."}},
	}
	var out []row
	for _, g := range []string{"g1", "g2", "g3"} {
		for i, l := range lines[g] {
			out = append(out, row{Name: fmt.Sprintf("%s-%d", g, i), Group: g, Time: base.Add(time.Duration(i) * time.Hour).Format(time.RFC3339), Speaker: l[0], Content: l[1]})
		}
	}
	return append(out, row{Name: "g2-bad", Group: "g2", Time: "the day " + planted + " closed", Speaker: "Zora", Content: "Bye " + planted + "!"})
}

// writeRows writes rows as JSON Lines, leaving out those of the speaker skip ("": none).
func writeRows(t *testing.T, path string, rows []row, skip string) int {
	t.Helper()
	var b bytes.Buffer
	n := 0
	for _, r := range rows {
		if r.Speaker == skip {
			continue
		}
		line, _ := json.Marshal(r)
		b.Write(append(line, '\n'))
		n++
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return n
}

// writeJob writes a job reading path as chat messages, with the given llm and embedder
// blocks and sink; extra is more YAML of the source entry (indented by four spaces).
func writeJob(t *testing.T, dir, name, checkpoint, input, models, sink, extra string) string {
	t.Helper()
	text := fmt.Sprintf(`name: %s
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: jsonl
    source: message
    description: chat
%s
%s
limits:
  max_failed_ratio: 1
  max_error_ratio: 0.5
%s`, name, checkpoint, input, extra, models, sink)
	job := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(job, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return job
}

// offlineModels are the llm and embedder blocks of the offline responder.
const offlineModels = "llm: {provider: offline}\nembedder: {provider: offline}"

// stubModels are the llm and embedder blocks of the stub at url.
func stubModels(url string) string {
	return fmt.Sprintf("llm: {provider: openai, base_url: %q, model: stub-chat, concurrency: 4}\nembedder: {provider: offline}", url)
}

// backfill runs the binary and returns its result, failing the test when it cannot start.
func backfill(t *testing.T, bin string, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), bin, args, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mustExit fails the test when res did not exit with one of codes.
func mustExit(t *testing.T, what string, res harness.Result, codes ...int) {
	t.Helper()
	for _, c := range codes {
		if res.Code == c {
			return
		}
	}
	t.Fatalf("%s: exit %d, want %v\nstdout:\n%s\nstderr:\n%s", what, res.Code, codes, res.Stdout, res.Stderr)
}

// filesHolding returns the files under the roots (files or directories; a missing root holds
// nothing) whose bytes hold s.
func filesHolding(t *testing.T, s string, roots ...string) []string {
	t.Helper()
	var out []string
	for _, root := range roots {
		if _, err := os.Lstat(root); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.Contains(b, []byte(s)) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// exportRows reads every table of a Parquet export as JSON lines, by group ("seq" of
// episodes dropped when noSeq: it is a row's position in its source file, no part of the graph).
func exportRows(t *testing.T, dir string, noSeq bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	add := func(table, group string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[group] = append(out[group], table+" "+string(b))
	}
	ctx := t.Context()
	for r, err := range parquet.Rows[parquet.EpisodeRow](ctx, dir, parquet.EpisodesFile) {
		must(t, err)
		if noSeq {
			r.Seq = 0
		}
		add("episode", r.GroupID, r)
	}
	for r, err := range parquet.Rows[parquet.EntityRow](ctx, dir, parquet.EntitiesFile) {
		must(t, err)
		add("entity", r.GroupID, r)
	}
	for r, err := range parquet.Rows[parquet.FactRow](ctx, dir, parquet.FactsFile) {
		must(t, err)
		add("fact", r.GroupID, r)
	}
	for r, err := range parquet.Rows[parquet.FactVersionRow](ctx, dir, parquet.FactVersionsFile) {
		must(t, err)
		add("fact_version", r.GroupID, r)
	}
	for _, f := range []string{parquet.MentionsFile, parquet.HasMemberFile} {
		for r, err := range parquet.Rows[parquet.EdgeRow](ctx, dir, f) {
			must(t, err)
			add(f, r.GroupID, r)
		}
	}
	for r, err := range parquet.Rows[parquet.CommunityRow](ctx, dir, parquet.CommunitiesFile) {
		must(t, err)
		add("community", r.GroupID, r)
	}
	for g := range out {
		sort.Strings(out[g])
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rowsHolding counts the decoded export rows that hold s.
func rowsHolding(rows map[string][]string, s string) int {
	n := 0
	for _, rs := range rows {
		for _, r := range rs {
			if strings.Contains(r, s) {
				n++
			}
		}
	}
	return n
}

// readReport reads a run report.
func readReport(t *testing.T, path string) report.Report {
	t.Helper()
	var r report.Report
	harness.ReadJSON(t, path, &r)
	return r
}
