package remote

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/tests/harness"
)

// extractDelay slows every answer so extraction lasts several snapshots (about 1,000 calls at
// 2 in flight).
const extractDelay = 15 * time.Millisecond

// TestShardSurvivesItsMachine: a shard run with an s3:// checkpoint is SIGKILLed mid-extract
// after some snapshots, its local disk is deleted, and it is run again: it restores from the
// bucket and no LLM call whose answer the last snapshot holds is made again (the repeated calls
// are at most those answered after that snapshot). Then the same with SIGTERM: exit 143 after
// a last snapshot that holds every answer the run received, so the next run, again on a fresh
// disk, repeats none. The final exports equal a single local run's, byte for byte.
func TestShardSurvivesItsMachine(t *testing.T) {
	f := newFixture(t)
	refStub := f.stub(t, 0)
	refJob := f.job(t, "local", filepath.Join(f.dir, "local.db"), refStub.URL)
	f.mustRun(t, refJob)
	ref := f.export(t, refJob, "local")

	t.Run("SIGKILL", func(t *testing.T) {
		s := f.stub(t, extractDelay)
		job := f.job(t, "killed", f.url("killed"), s.URL)
		p := f.start(t, job)
		waitLines(t, p, `msg="stage starting" stage=extract`, 1)
		waitLines(t, p, "reason=periodic", 3) // at least two snapshots during extract
		if err := p.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		res, err := p.Wait()
		if err != nil || res.Signal == "" {
			t.Fatalf("the run was not killed (exit %d, %v)", res.Code, err)
		}
		if !s.WaitIdle(30 * time.Second) {
			t.Fatal("the stub still serves the killed run")
		}
		before := s.Answers()
		stBefore := stats(t, s)
		in, out, kept := cached(t, f.snapshot(t, "killed"), before)
		if len(in) == 0 || len(out) == 0 {
			t.Fatalf("the kill did not land between snapshots mid-extract: %d answers in the last snapshot, %d after it", len(in), len(out))
		}
		if err := os.RemoveAll(filepath.Dir(f.local("killed"))); err != nil { // the machine is gone
			t.Fatal(err)
		}
		time.Sleep((leaseSeconds + 1) * time.Second) // the dead run's lease expires

		again := f.mustRun(t, job)
		if lines(again.Stderr, "checkpoint restored from the bucket") != 1 || lines(again.Stderr, "took over an expired checkpoint lease") != 1 {
			t.Fatalf("the second run did not restore from the bucket after taking the expired lease\n%s", tail(again.Stderr))
		}
		repeated := 0
		for _, a := range s.Answers()[len(before):] {
			for _, k := range a.Keys {
				if in[k] {
					t.Fatalf("the run after the restore asked again for %s (task %s), whose answer the last snapshot holds", k, a.Task)
				}
				if out[k] {
					repeated++
				}
			}
		}
		// The stub also answered requests whose client was killed before reading the answer
		// (the recorder does not count those): its bound is its answers less the snapshot's.
		st := stats(t, s)
		if rep, after := st.Repeated-stBefore.Repeated, stBefore.Answered-int64(kept); rep > after || repeated > len(out) {
			t.Fatalf("%d calls repeated (stub: %d), more than those answered after the last snapshot (%d; stub: %d)", repeated, rep, len(out), after)
		}
		t.Logf("killed after %d answers (%d in the last snapshot, %d after it); the restored run repeated %d of them (stub: %d repeated of %d calls)",
			len(in)+len(out), len(in), len(out), repeated, st.Repeated-stBefore.Repeated, st.Calls-stBefore.Calls)
		if err := harness.CompareDirs(ref, f.export(t, job, "killed")); err != nil {
			t.Fatalf("the export after the kill and restore differs from a single local run's: %v", err)
		}
	})

	t.Run("SIGTERM", func(t *testing.T) {
		s := f.stub(t, extractDelay)
		job := f.job(t, "terminated", f.url("terminated"), s.URL)
		p := f.start(t, job)
		waitLines(t, p, `msg="stage starting" stage=extract`, 1)
		waitLines(t, p, "reason=periodic", 2)
		if err := p.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		res, err := p.Wait()
		if err != nil {
			t.Fatal(err)
		}
		noCrash(t, res)
		if res.Code != 143 || lines(res.Stderr, "reason=interrupt") != 1 || lines(res.Stderr, "checkpoint kept in the bucket") != 1 {
			t.Fatalf("SIGTERM: exit %d, want 143 after a snapshot at the signal and a last one\n%s", res.Code, tail(res.Stderr))
		}
		before := s.Answers()
		in, out, _ := cached(t, f.snapshot(t, "terminated"), before)
		if len(out) > 0 || len(in) == 0 {
			t.Fatalf("the bucket's last snapshot lacks %d of the %d answers the run received before exit 143", len(out), len(in)+len(out))
		}
		if err := os.RemoveAll(filepath.Dir(f.local("terminated"))); err != nil {
			t.Fatal(err)
		}
		stBefore := stats(t, s)
		again := f.mustRun(t, job) // at once: the lease was released
		if lines(again.Stderr, "checkpoint restored from the bucket") != 1 || lines(again.Stderr, "lease") != 0 {
			t.Fatalf("the run after SIGTERM did not restore at once\n%s", tail(again.Stderr))
		}
		if rep := stats(t, s).Repeated - stBefore.Repeated; rep != 0 {
			t.Fatalf("the run after SIGTERM repeated %d calls", rep)
		}
		t.Logf("SIGTERM after %d answers: exit 143, all in the last snapshot; the next run repeated none", len(in))
		if err := harness.CompareDirs(ref, f.export(t, job, "terminated")); err != nil {
			t.Fatalf("the export after SIGTERM and restore differs from a single local run's: %v", err)
		}
	})
}

// TestOneWriterPerStore: while a run holds an s3:// checkpoint, a second run on it (from another
// local disk) fails at once with exit 1 naming the holder's pid, host and start; status and
// export read the latest snapshot beside the run.
func TestOneWriterPerStore(t *testing.T) {
	f := newFixture(t)
	s := f.stub(t, 50*time.Millisecond)
	job := f.job(t, "held", f.url("held"), s.URL)
	first := f.start(t, job)
	waitLines(t, first, `msg="checkpoint snapshot uploaded"`, 1)

	start := time.Now()
	second := f.run(t, "run", job, "--shard", shard, "--set", "checkpoint_sync.local="+filepath.Join(f.dir, "other-disk", "copy.db"))
	host, _ := os.Hostname()
	errLine := tail(second.Stderr)
	for _, want := range []string{f.url("held"), fmt.Sprintf("pid %d", first.Pid()), "host " + host, " since ", f.url("held") + ".lease"} {
		if second.Code != 1 || !strings.Contains(second.Stderr, want) {
			t.Fatalf("second run: exit %d, want 1 naming %q\n%s", second.Code, want, errLine)
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the second run took %v to fail; it must fail at once", d)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "other-disk", "copy.db")); err == nil {
		t.Error("the refused run created a local copy")
	}
	t.Logf("second run: %s", strings.TrimSpace(errLine[strings.LastIndex(errLine, "\n")+1:]))

	for _, args := range [][]string{{"status", job}, {"export", job, "--out", filepath.Join(f.dir, "during")}, {"query", job, "--json"}} {
		if res := f.run(t, args...); res.Code != 0 {
			t.Errorf("%s beside the run: exit %d\n%s", args[0], res.Code, tail(res.Stderr))
		}
	}
	_ = first.Signal(syscall.SIGTERM)
	if res, err := first.Wait(); err != nil || res.Code != 143 {
		t.Fatalf("the first run after SIGTERM: exit %d (%v)\n%s", res.Code, err, tail(res.Stderr))
	}
}

// TestBatchSubmittedBeforeDeath: in batch mode, a run killed right after the provider created a
// batch, whose local disk is then lost, finds that batch again from the bucket's snapshot and
// collects it: no request is submitted twice.
func TestBatchSubmittedBeforeDeath(t *testing.T) {
	f := newFixture(t)
	s := f.stub(t, 0, "--batch-delay", "3s")
	job := f.job(t, "batch", f.url("batch"), s.URL)
	batch := []string{"--set", "llm.mode=batch", "--set", "embedder.mode=batch", "--set", "llm.batch.poll_seconds=0.05"}
	p := f.start(t, job, batch...)
	waitLines(t, p, `msg="batch submitted"`, 1)
	_ = p.Signal(syscall.SIGKILL)
	if res, err := p.Wait(); err != nil || res.Signal == "" {
		t.Fatalf("the run was not killed (exit %d, %v)", res.Code, err)
	}
	submitted := stats(t, s).Batches
	if err := os.RemoveAll(filepath.Dir(f.local("batch"))); err != nil {
		t.Fatal(err)
	}
	time.Sleep((leaseSeconds + 1) * time.Second)
	again := f.mustRun(t, job, batch...)
	st := stats(t, s)
	if lines(again.Stderr, "checkpoint restored from the bucket") != 1 || st.BatchResubmitted != 0 || st.BatchMaxSubmissions != 1 {
		t.Fatalf("after the kill: stub %+v; want the restored run to collect the batch, every request submitted once\n%s", st, tail(again.Stderr))
	}
	t.Logf("killed after %d batch(es) were created; the restored run collected them: %d batches, %d requests, none resubmitted",
		submitted, st.Batches, st.BatchRequests)
}

// TestDeployScript: deploy/shard.sh, as the Kubernetes and AWS Batch examples run it, keeps the
// shard's store at BACKFILL_CHECKPOINT_URL/shard-I-of-N.db with its local copy and report under
// BACKFILL_CHECKPOINT_DIR; status reads the bucket's snapshot.
func TestDeployScript(t *testing.T) {
	f := newFixture(t)
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(f.dir, "offline.yaml")
	yaml := fmt.Sprintf("name: deploy\nrecord_time: reference\nsources:\n  - path: %s\n    format: locomo\ns3: {endpoint: %q, path_style: true}\n",
		f.input, f.s3.Endpoint)
	if err := os.WriteFile(job, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(f.dir, "pod")
	prefix := "s3://" + f.bucket + "/deploy/"
	env := []string{"PATH=" + filepath.Dir(f.bin) + ":" + os.Getenv("PATH"), "BACKFILL_JOB=" + job, "BACKFILL_SHARDS=2",
		"JOB_COMPLETION_INDEX=1", "BACKFILL_CHECKPOINT_URL=" + prefix, "BACKFILL_CHECKPOINT_DIR=" + work}
	res, err := harness.Run(t.Context(), "sh", []string{filepath.Join(root, "deploy", "shard.sh")}, harness.Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || lines(res.Stderr, "checkpoint kept in the bucket") != 1 {
		t.Fatalf("deploy/shard.sh: exit %d\n%s", res.Code, tail(res.Stderr))
	}
	for _, p := range []string{"shard-1-of-2.db", "shard-1-of-2.report.json"} {
		if _, err := os.Stat(filepath.Join(work, p)); err != nil {
			t.Errorf("the pod's disk lacks %s: %v", p, err)
		}
	}
	st := f.run(t, "status", job, "--checkpoint", prefix+"shard-1-of-2.db")
	if st.Code != 0 || !strings.Contains(st.Stdout, prefix+"shard-1-of-2.db") || !strings.Contains(st.Stdout, "episodes") {
		t.Fatalf("status of the shard's bucket snapshot: exit %d\n%s\n%s", st.Code, st.Stdout, tail(st.Stderr))
	}
}
