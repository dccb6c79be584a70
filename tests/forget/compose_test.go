package forget

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// s3Env points the binaries of the test at the S3 gateway (its credentials only, no shared AWS
// files, the user cache in the test's directory: the local copies of s3:// stores go there)
// and returns the --set flags of its endpoint.
func s3Env(t *testing.T, dir string) (testenv.S3Env, []string) {
	t.Helper()
	e := testenv.S3(t)
	for k, v := range e.ProcessEnv(dir) {
		t.Setenv(k, v)
	}
	return e, []string{"--set", "s3.endpoint=" + e.Endpoint, "--set", "s3.path_style=true"}
}

// TestForgetOnS3Store: forget opens a store kept in a bucket as every other command does; the
// dry run changes nothing, the forgetting leaves the planted string in no snapshot of the
// bucket, no file beside the local copy and none of the files the commands wrote from the
// store: a Parquet export whose directory also holds a file of the user's (kept as it is), a
// default timeline page, an eval report and a dry run's report. The quarantined row that
// holds it goes too.
func TestForgetOnS3Store(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	e, flags := s3Env(t, dir)
	bucket := testenv.NewBucket(t, e, nil)
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, conversations(), "")
	cp := "s3://" + bucket + "/jobs/forget.db"
	job := writeJob(t, dir, "s3forget", cp, input, offlineModels, "", "")
	args := func(a ...string) []string { return append(append([]string{}, a...), flags...) }
	work := filepath.Join(dir, "work")
	must(t, os.MkdirAll(work, 0o755))
	run := func(what string, codes []int, a ...string) harness.Result {
		t.Helper()
		res, err := harness.Run(t.Context(), bin, args(a...), harness.Options{Dir: work})
		if err != nil {
			t.Fatal(err)
		}
		mustExit(t, what, res, codes...)
		return res
	}
	run("run", []int{3}, "run", job)
	pq := filepath.Join(dir, "parquet")
	run("export", []int{0}, "export", job, "--out", pq)
	must(t, os.WriteFile(filepath.Join(pq, "notes.txt"), []byte("the user's own notes\n"), 0o644))
	run("timeline", []int{0}, "timeline", job, "--entity", "Zora")
	page := filepath.Join(work, "forget.db.timeline-Zora.html")
	evalMD := filepath.Join(dir, "eval.md")
	run("eval", []int{0}, "eval", job, "--markdown", evalMD, "--json", filepath.Join(dir, "eval.json"))
	dry := filepath.Join(dir, "dry.json")
	run("dry run", []int{0}, "forget", job, "--speaker", "Zora", "--dry-run", "--report", dry)
	cache := filepath.Join(dir, "cache")
	files := []string{pq, page, dry, cache}
	holding := filesHolding(t, planted, files...)
	for _, want := range []string{filepath.Join(pq, "facts.parquet"), page, dry} {
		if !contains(holding, want) {
			t.Fatalf("before forgetting, %s does not hold %q (files holding it: %v): the test checks nothing there", want, planted, holding)
		}
	}
	if !hasPrefix(holding, filepath.Join(cache, "backfill", "checkpoints")) {
		t.Fatalf("before forgetting, the local copy of the store does not hold %q (files holding it: %v)", planted, holding)
	}
	if n := bucketHolding(t, e, bucket, planted); n == 0 {
		t.Fatalf("before forgetting, no object of the bucket holds %q", planted)
	}

	res := run("forget", []int{0}, "forget", job, "--speaker", "Zora")
	for _, want := range []string{"export\t" + pq + ": rewritten (its files only; kept as they are, not written by export: notes.txt)",
		"timeline\t" + page + ": removed", "report\t" + dry + ": redacted"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("forget's output lacks %q:\n%s", want, res.Stdout)
		}
	}
	if got := filesHolding(t, planted, files...); len(got) > 0 {
		t.Errorf("after forgetting, these files still hold %q: %v", planted, got)
	}
	if n := bucketHolding(t, e, bucket, planted); n > 0 {
		t.Errorf("after forgetting, %d objects of the bucket hold %q", n, planted)
	}
	if b, err := os.ReadFile(filepath.Join(pq, "notes.txt")); err != nil || string(b) != "the user's own notes\n" {
		t.Errorf("the user's file in the export directory: %q, %v; want it as it was", b, err)
	}
	var d map[string]any
	if b, err := os.ReadFile(dry); err != nil || json.Unmarshal(b, &d) != nil {
		t.Errorf("the redacted dry-run report is no longer JSON: %v", err)
	}
	if _, err := os.Stat(evalMD); err != nil {
		t.Errorf("the eval report: %v", err)
	}
}

// TestForgetSelections: a blank value is refused (exit 2, nothing changed), --all forgets every
// episode, and a value that only a quarantined row holds forgets that row.
func TestForgetSelections(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, conversations(), "")
	cp := filepath.Join(dir, "store", "job.db")
	job := writeJob(t, dir, "sel", cp, input, offlineModels, "", "")
	mustExit(t, "run", backfill(t, bin, "run", job), 3)
	before := fileSums(t, cp)
	for _, blank := range [][]string{{"--match", ""}, {"--match", "  "}, {"--speaker", ""}, {"--group", "g1", "--match", "\t"}} {
		res := backfill(t, bin, append([]string{"forget", job}, blank...)...)
		mustExit(t, fmt.Sprintf("forget %q", blank), res, 2)
		if !strings.Contains(res.Stderr, "empty or blank") || !strings.Contains(res.Stderr, "--all") {
			t.Errorf("forget %q: stderr %q; want it to say the value is blank and name --all", blank, res.Stderr)
		}
	}
	mustExit(t, "forget --all --group", backfill(t, bin, "forget", job, "--all", "--group", "g1"), 2)
	if after := fileSums(t, cp); !equalSums(before, after) {
		t.Errorf("a refused forget changed the store's files")
	}

	// The quarantined row (Zora's, with a time no loader reads) holds a text no episode has.
	q := cp + ".quarantine.jsonl"
	b, err := os.ReadFile(q)
	must(t, err)
	only := "Bye " + planted // the quarantined row's text; no episode holds it
	if !strings.Contains(string(b), only) {
		t.Fatalf("the quarantine %s does not hold the row the test forgets:\n%s", q, b)
	}
	res := backfill(t, bin, "forget", job, "--match", only)
	mustExit(t, "forget a quarantined row", res, 0)
	if !strings.Contains(res.Stdout, "quarantine  1 quarantined rows") {
		t.Errorf("forget of a quarantined row's text: output lacks the quarantined row:\n%s", res.Stdout)
	}
	if b, _ := os.ReadFile(q); strings.Contains(string(b), only) {
		t.Errorf("the quarantine file still holds the forgotten row")
	}

	res = backfill(t, bin, "forget", job, "--all")
	mustExit(t, "forget --all", res, 0)
	if got := episodeUUIDs(t, cp); len(got) != 0 {
		t.Errorf("forget --all left %d episodes", len(got))
	}
}

// TestForgetWithAPendingBatch: in batch mode, a forgetting while the batch holding the
// speaker's extractions is pending discards their answers when the batch is collected (paid,
// counted, never cached); the store then holds none of the text.
func TestForgetWithAPendingBatch(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	llm, err := harness.StartStub(stub.Options{BatchDelay: 2 * time.Second}, nil)
	must(t, err)
	t.Cleanup(func() { llm.Close() })
	rows := conversations()
	rows = rows[:len(rows)-1] // no quarantined row
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, rows, "")
	cpDir := filepath.Join(dir, "store")
	cp := filepath.Join(cpDir, "job.db")
	job := writeJob(t, dir, "pending", cp, input, stubModels(llm.URL), "",
		"")
	batch := []string{"--set", "llm.mode=batch", "--set", "llm.batch.poll_seconds=0.05"}
	res := backfill(t, bin, append([]string{"run", job, "--no-wait"}, batch...)...)
	mustExit(t, "run --no-wait", res, 0)
	if !strings.Contains(res.Stderr, "batches pending") {
		t.Fatalf("run --no-wait: no batch pending:\n%s", res.Stderr)
	}
	rep := filepath.Join(dir, "forget.json")
	res = backfill(t, bin, append([]string{"forget", job, "--speaker", "Zora", "--report", rep}, batch...)...)
	mustExit(t, "forget", res, 0)
	if !strings.Contains(res.Stdout, "requests of provider batches still pending carried their text") {
		t.Errorf("forget does not say it discards the pending answers:\n%s", res.Stdout)
	}
	var f struct {
		Run *report.Report `json:"run"`
	}
	b, err := os.ReadFile(rep)
	must(t, err)
	must(t, json.Unmarshal(b, &f))
	if f.Run == nil || f.Run.Batch == nil || f.Run.Batch.Discarded == 0 {
		t.Errorf("forget's run collected the pending batch without discarding an answer: %s", b)
	}
	if got := filesHolding(t, planted, cpDir); len(got) > 0 {
		t.Errorf("after forgetting with a pending batch, these files hold %q: %v", planted, got)
	}
	mustExit(t, "run again", backfill(t, bin, append([]string{"run", job}, batch...)...), 0)
	if got := filesHolding(t, planted, cpDir); len(got) > 0 {
		t.Errorf("after the next run, these files hold %q: %v", planted, got)
	}
}

// bucketHolding counts the objects of the bucket whose bytes hold s.
func bucketHolding(t *testing.T, e testenv.S3Env, bucket, s string) int {
	t.Helper()
	objs, err := testenv.Objects(t.Context(), e, bucket)
	must(t, err)
	n := 0
	for key, b := range objs {
		if dec, err := zstd.NewReader(nil); err == nil { // a snapshot is the database compressed with zstd
			if plain, err := dec.DecodeAll(b, nil); err == nil {
				b = plain
			}
			dec.Close()
		} else {
			t.Fatalf("reading %s: %v", key, err)
		}
		if strings.Contains(string(b), s) {
			n++
		}
	}
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasPrefix(list []string, p string) bool {
	for _, x := range list {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

func equalSums(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestStatusAfterAKilledForget: a forget killed once the episodes are gone (while it computes
// their groups again) leaves the forgetting pending: status says so, and the next run
// completes it.
func TestStatusAfterAKilledForget(t *testing.T) {
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	slow, err := harness.StartStub(stub.Options{}, func(string) time.Duration { return 2 * time.Second })
	must(t, err)
	t.Cleanup(func() { slow.Close() })
	input := filepath.Join(dir, "chat.jsonl")
	writeRows(t, input, conversations(), "")
	cp := filepath.Join(dir, "store", "job.db")
	job := writeJob(t, dir, "killed", cp, input, offlineModels, "", "")
	mustExit(t, "run", backfill(t, bin, "run", job), 3)
	res := backfill(t, bin, "status", job)
	mustExit(t, "status", res, 0)
	if strings.Contains(res.Stdout, "forgetting") {
		t.Fatalf("status before any forget says a forgetting is pending:\n%s", res.Stdout)
	}
	// The forget computes the group again with another (slow) model: killed while it waits.
	p, err := harness.Start(t.Context(), bin, []string{"forget", job, "--speaker", "Zora", "--set", "llm.provider=openai",
		"--set", "llm.base_url=" + slow.URL, "--set", "llm.model=stub-chat"}, harness.Options{})
	must(t, err)
	if !p.WaitStage(t.Context(), "extract") {
		t.Fatal("forget never reached extract")
	}
	must(t, p.Signal(os.Kill))
	_, _ = p.Wait()
	res = backfill(t, bin, "status", job)
	mustExit(t, "status after the killed forget", res, 0)
	if !strings.Contains(res.Stdout, "PENDING in 1 groups (g2)") {
		t.Errorf("status after a killed forget does not say the forgetting is pending:\n%s", res.Stdout)
	}
	mustExit(t, "run", backfill(t, bin, "run", job), 0, 3)
	res = backfill(t, bin, "status", job)
	if strings.Contains(res.Stdout, "PENDING") {
		t.Errorf("status after the completing run still says a forgetting is pending:\n%s", res.Stdout)
	}
}
