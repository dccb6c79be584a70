package matrix

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestErrorsNameTheCause: each mistake a user makes with a store, a bucket or a bound is an
// error that names its cause and the next step, and changes nothing.
func TestErrorsNameTheCause(t *testing.T) {
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	e := testenv.S3(t)
	bucket := testenv.NewBucket(t, e, nil)
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	// The demo job, its sources named absolutely: the commands run in the test's directory.
	demo, err := os.ReadFile(filepath.Join(root, "jobs", "examples", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "demo.yaml")
	if err := os.WriteFile(job, []byte(strings.ReplaceAll(string(demo), "path: examples/", "path: "+root+"/examples/")), 0o644); err != nil {
		t.Fatal(err)
	}
	s3Flags := []string{"--set", "s3.endpoint=" + e.Endpoint, "--set", "s3.path_style=true"}
	base := e.ProcessEnv(dir)
	delete(base, "AWS_ACCESS_KEY_ID")
	delete(base, "AWS_SECRET_ACCESS_KEY")
	env := func(key, secret string) []string {
		var out []string
		for k, v := range base {
			out = append(out, k+"="+v)
		}
		// Always set, empty for "none": the process inherits the test's environment, which
		// scripts/with_servers.sh gives the gateway's credentials.
		return append(out, "AWS_ACCESS_KEY_ID="+key, "AWS_SECRET_ACCESS_KEY="+secret)
	}
	good := env(e.AccessKey, e.SecretKey)
	run := func(t *testing.T, envv []string, args ...string) harness.Result {
		t.Helper()
		res, err := harness.Run(t.Context(), bin, args, harness.Options{Dir: dir, Env: envv})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// A store in the bucket, for the readers with wrong credentials.
	cp := "s3://" + bucket + "/demo.db"
	if res := run(t, good, append([]string{"run", job, "--checkpoint", cp}, s3Flags...)...); res.Code != 0 {
		t.Fatalf("run into the bucket: exit %d\n%s", res.Code, res.Stderr)
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		code int
		want []string
	}{
		{"unknown access key", env("nobody", "x"), []string{"status", job, "--checkpoint", cp}, 1,
			[]string{"refused the credentials", "AWS_ACCESS_KEY_ID"}},
		{"wrong secret", env(e.AccessKey, "wrong"), []string{"status", job, "--checkpoint", cp}, 1,
			[]string{"refused the credentials (SignatureDoesNotMatch)"}},
		{"no credentials", env("", ""), []string{"status", job, "--checkpoint", cp}, 1,
			[]string{"no AWS credentials were found", "AWS_ACCESS_KEY_ID"}},
		{"store not run yet", good, []string{"status", job, "--checkpoint", "s3://" + bucket + "/none.db"}, 1,
			[]string{"no snapshot in the bucket (has the job run?)"}},
		{"missing bucket, reader", good, []string{"status", job, "--checkpoint", "s3://" + bucket + "-gone/demo.db"}, 1,
			[]string{`the bucket "` + bucket + `-gone" does not exist at ` + e.Endpoint, "create it first"}},
		{"missing bucket, writer", good, []string{"run", job, "--checkpoint", "s3://" + bucket + "-gone/demo.db"}, 1,
			[]string{`the bucket "` + bucket + `-gone" does not exist`}},
		{"invalid bucket name", good, []string{"status", job, "--checkpoint", "s3://Bad_Bucket/demo.db"}, 1,
			[]string{`"Bad_Bucket" is not a valid bucket name`}},
		{"unreachable endpoint", good, []string{"status", job, "--checkpoint", cp, "--set", "s3.endpoint=http://127.0.0.1:1"}, 1,
			[]string{"cannot reach http://127.0.0.1:1", "s3.endpoint"}},
		{"one slash", good, []string{"run", job, "--checkpoint", "s3:/" + bucket + "/k.db"}, 1,
			[]string{`looks like a URL without its "//"`, "did you mean s3://" + bucket + "/k.db"}},
		{"source index with a leading zero", good, []string{"plan", job, "--set", "sources.01.path=x.jsonl"}, 2,
			[]string{`"01" is not an index`}},
		{"sink lease of 0 seconds", good, []string{"plan", job, "--set", "sink.kind=neo4j", "--set", "sink.lease_seconds=0"}, 2,
			[]string{"sink.lease_seconds", "at least 3", "leave the key out"}},
		{"checkpoint lease of 0 seconds", good, []string{"plan", job, "--set", "checkpoint_sync.lease_seconds=0"}, 2,
			[]string{"checkpoint_sync.lease_seconds", "leave the key out"}},
		{"forget --load without a database", good, []string{"forget", job, "--checkpoint", cp, "--speaker", "Alice", "--load"}, 1,
			[]string{"--load needs a graph database sink (sink.kind memgraph, neo4j or falkordb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if !strings.Contains(strings.Join(args, " "), "s3.endpoint=") {
				args = append(args, s3Flags...)
			}
			res := run(t, tc.env, args...)
			if res.Code != tc.code {
				t.Errorf("exit %d, want %d\nstderr:\n%s", res.Code, tc.code, res.Stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, res.Stderr)
				}
			}
			if strings.Contains(res.Stderr, e.SecretKey) {
				t.Errorf("an error shows the secret key")
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "s3:")); err == nil {
		t.Errorf("--checkpoint s3:/… made a local directory s3:")
	}

	// A provider batch that fails: its requests' error carries the provider's reason.
	p, stub, err := harness.StartLLMStub(t.Context(), bin, "--batch-failed-rate", "1")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = p.Signal(os.Interrupt)
		_, _ = p.Wait()
	}()
	res := run(t, good, "run", job, "--checkpoint", filepath.Join(dir, "failing.db"), "--set", "llm.provider=openai",
		"--set", "llm.base_url="+stub, "--set", "llm.model=stub-chat", "--set", "llm.mode=batch", "--set", "llm.batch.poll_seconds=0.05",
		"--set", "llm.batch.max_retries=1")
	if res.Code == 0 || !strings.Contains(res.Stderr, "the batch ended (failed) without an answer: stub_batch_failed: stub: injected batch failure") {
		t.Errorf("a run whose batches fail: exit %d; want an error with the provider's reason\n%s", res.Code, res.Stderr)
	}
}

// TestBoundsAreKeys: a user's data past a default bound is quarantined naming the key that
// raises it, and runs once the key is raised; a group id longer than the sinks can index is
// mapped (and loads into FalkorDB, whose index finds no string past 4,096 bytes).
func TestBoundsAreKeys(t *testing.T) {
	falkor := testenv.FalkorDBExclusive(t) // other packages clear the server
	bin := harness.BuildBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	long := strings.Repeat("g", 5000)
	big := make([]int, 150_000) // past the default 100,000 values of a JSON body
	bigJSON, _ := json.Marshal(map[string]any{"id": "r1", "values": big})
	lines := []string{
		fmt.Sprintf(`{"group_id":%q,"reference_time":"2024-01-01T10:00:00Z","speaker":"Ann","content":"I work at Lumen Labs now."}`, long),
		fmt.Sprintf(`{"group_id":%q,"reference_time":"2024-01-02T10:00:00Z","speaker":"Ann","content":"I live in Porto."}`, long),
		`{"group_id":"bounds-short","reference_time":"2024-01-01T10:00:00Z","speaker":"Bob","content":"I work at Harbor Bank."}`,
	}
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs := filepath.Join(dir, "records.jsonl")
	if err := os.WriteFile(recs, []byte(fmt.Sprintf(`{"group_id":"bounds-rec","reference_time":"2024-01-01T10:00:00Z","record_key":"r1","record":%s}`+"\n", bigJSON)), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf(`name: bounds
checkpoint: %s
record_time: reference
sources:
  - path: %s
    format: jsonl
    source: message
    mapping: {group: group_id, reference_time: reference_time, speaker: speaker, body: content}
  - path: %s
    format: jsonl
    source: json
    max_body_bytes: 4000000
    mapping: {group: group_id, reference_time: reference_time, record_key: record_key, body: record}
llm: {provider: offline}
embedder: {provider: offline}
limits: {max_error_ratio: 1}
`, filepath.Join(dir, "b.db"), in, recs)
	job := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) harness.Result {
		t.Helper()
		res, err := harness.Run(t.Context(), bin, args, harness.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run("run", job, "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor)
	if res.Code != 3 {
		t.Fatalf("run with a record past the default values bound: exit %d, want 3 (quarantined)\n%s", res.Code, res.Stderr)
	}
	q, err := os.ReadFile(filepath.Join(dir, "b.db.quarantine.jsonl"))
	if err != nil || !strings.Contains(string(q), "more than 100000 values (the limit, sources[].max_json_values)") {
		t.Errorf("the quarantine does not name the bound and its key: %v\n%.300s", err, q)
	}
	if !strings.Contains(res.Stderr+res.Stdout, "rewritten") {
		t.Errorf("the 5,000-byte group id was not reported as rewritten:\n%s", res.Stderr)
	}
	res = run("run", job, "--set", "sink.kind=falkordb", "--set", "sink.uri="+falkor, "--set", "sources.1.max_json_values=200000")
	if res.Code != 0 {
		t.Errorf("run with sources[1].max_json_values raised: exit %d, want 0\n%s", res.Code, res.Stderr)
	}
	db, err := harness.DialFalkorDB(falkor)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	graphs, err := db.Graphs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	mapped := ""
	for _, g := range graphs {
		if strings.HasPrefix(g, "ggggg") {
			if len(g) > 255 {
				t.Errorf("FalkorDB holds a graph named by the unmapped %d-byte id", len(g))
			}
			mapped = g
		}
	}
	if mapped == "" {
		t.Errorf("no graph of the long group in FalkorDB: %v", graphs)
	}
}
