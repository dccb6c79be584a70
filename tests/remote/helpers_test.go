package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// conversations is how many LoCoMo conversations the tests read.
const conversations = 4

// shard is the shard the tests run (a shard run, as deploy/ starts them).
const shard = "0/2"

// leaseSeconds is the jobs' lease TTL: short, so a killed run's lease expires within the test.
const leaseSeconds = 3

// fixture is the built binary, the LoCoMo subset, and a bucket on the test gateway.
type fixture struct {
	bin, dir, input string
	s3              testenv.S3Env
	bucket          string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	src := testenv.LoCoMo(t, root)
	f := &fixture{dir: t.TempDir(), s3: testenv.S3(t)}
	f.bucket = testenv.NewBucket(t, f.s3, nil)
	if f.bin, err = harness.Build(t.Context(), root, f.dir); err != nil {
		t.Fatal(err)
	}
	f.input = filepath.Join(f.dir, "locomo.json")
	if err := harness.FilterLoCoMo(src, f.input, conversations); err != nil {
		t.Fatal(err)
	}
	// The binaries' environment: the gateway's credentials only, no shared AWS files.
	for k, v := range f.s3.ProcessEnv(f.dir) {
		t.Setenv(k, v)
	}
	return f
}

// stub starts a `backfill llm-stub` of its own (no faults) behind a Recorder that delays each
// answer by delay; its counters belong to one scenario.
func (f *fixture) stub(t *testing.T, delay time.Duration, flags ...string) *harness.Stub {
	t.Helper()
	upstream := harness.LLMStub(t, f.bin, flags...)
	s, err := harness.StartProxy(upstream, func(string) time.Duration { return delay })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// job writes a job named name whose checkpoint is checkpoint (a path or an s3:// URL), asking
// the stub at base with concurrency 2; an s3:// checkpoint takes a snapshot every second,
// works on a local copy under the fixture's directory and holds a short lease.
func (f *fixture) job(t *testing.T, name, checkpoint, base string) string {
	t.Helper()
	yaml := harness.StubJobYAML(name, checkpoint, fmt.Sprintf("path: %s\n    format: locomo", f.input), base, 2) +
		fmt.Sprintf("s3: {endpoint: %q, path_style: true}\n", f.s3.Endpoint)
	if strings.HasPrefix(checkpoint, "s3://") {
		yaml += fmt.Sprintf("checkpoint_sync: {local: %q, seconds: 1, lease_seconds: %d}\n", f.local(name), leaseSeconds)
	}
	job := filepath.Join(f.dir, name+".yaml")
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return job
}

// local is the local copy of the job named name.
func (f *fixture) local(name string) string { return filepath.Join(f.dir, "disk-"+name, "copy.db") }

// url is the s3:// checkpoint of the job named name.
func (f *fixture) url(name string) string { return "s3://" + f.bucket + "/shards/" + name + ".db" }

// start starts `backfill run JOB --shard 0/2` with extra arguments.
func (f *fixture) start(t *testing.T, job string, extra ...string) *harness.Proc {
	t.Helper()
	p, err := harness.Start(t.Context(), f.bin, append([]string{"run", job, "--shard", shard}, extra...), harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs the binary to its end.
func (f *fixture) run(t *testing.T, args ...string) harness.Result {
	t.Helper()
	res, err := harness.Run(t.Context(), f.bin, args, harness.Options{})
	if err != nil {
		t.Fatal(err)
	}
	noCrash(t, res)
	return res
}

// mustRun runs the job's shard to its end and requires exit 0.
func (f *fixture) mustRun(t *testing.T, job string, extra ...string) harness.Result {
	t.Helper()
	res, err := f.start(t, job, extra...).Wait()
	if err != nil {
		t.Fatal(err)
	}
	noCrash(t, res)
	if res.Code != 0 {
		t.Fatalf("backfill run %s: exit %d\n%s", job, res.Code, tail(res.Stderr))
	}
	return res
}

// export writes the job's Parquet export (from its checkpoint: an s3:// one's latest snapshot)
// into a new directory and returns it.
func (f *fixture) export(t *testing.T, job, name string) string {
	t.Helper()
	out := filepath.Join(f.dir, name+"-export")
	if err := harness.Export(t.Context(), f.bin, job, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshot opens the bucket's latest snapshot of the job named name.
func (f *fixture) snapshot(t *testing.T, name string) *checkpoints.Store {
	t.Helper()
	loc, _, err := replica.Parse(f.url(name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := replica.OpenReadOnly(t.Context(), replica.Options{Client: f.s3.Client(), Location: loc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// cached splits the cache keys of answers into those of answers whose every key the store holds
// and the others; n counts the answers of the first kind.
func cached(t *testing.T, s *checkpoints.Store, answers []harness.Answer) (in, out map[string]bool, n int) {
	t.Helper()
	in, out = map[string]bool{}, map[string]bool{}
	for _, a := range answers {
		all := len(a.Keys) > 0
		for _, k := range a.Keys {
			if _, ok, err := s.Get(context.Background(), k); err != nil {
				t.Fatal(err)
			} else if !ok {
				all = false
			}
		}
		for _, k := range a.Keys {
			if all {
				in[k] = true
			} else {
				out[k] = true
			}
		}
		if all {
			n++
		}
	}
	return in, out, n
}

// stats reads a stub's counters.
func stats(t *testing.T, s *harness.Stub) stub.Stats {
	t.Helper()
	st, err := s.Stats()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// waitLines waits up to a minute for n log lines containing substr.
func waitLines(t *testing.T, p *harness.Proc, substr string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if !p.WaitLines(ctx, substr, n) {
		_ = p.Signal(os.Kill)
		res, _ := p.Wait()
		t.Fatalf("no %d lines %q: exit %d\n%s", n, substr, res.Code, tail(res.Stderr))
	}
}

// lines counts the log lines of a result that contain substr.
func lines(s, substr string) int { return strings.Count(s, substr) }

func noCrash(t *testing.T, res harness.Result) {
	t.Helper()
	if strings.Contains(res.Stderr, "panic:") || strings.Contains(res.Stderr, "fatal error:") {
		t.Fatalf("backfill crashed (exit %d):\n%s", res.Code, res.Stderr)
	}
}

// tail is the end of a log.
func tail(s string) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-25):], "\n")
}
