package batch

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestBatchMode runs a LoCoMo subset online once (the reference), then in batch mode: plain,
// killed while batches are pending, with --no-wait, and against a stub whose batches fail,
// expire and write unreadable lines. Each batch run has a stub of its own, so the stub's
// submission counts are that run's.
func TestBatchMode(t *testing.T) {
	f := newFixture(t)
	onlineBase := f.Stub(t)
	refJob, _ := f.Job(t, "online", onlineBase)
	ref := f.mustRun(t, refJob)
	refExport := f.export(t, refJob, "online")
	t.Logf("online: %d episodes, %d facts, %d LLM calls, $%.4f at gpt-4o-mini and text-embedding-3-small list prices",
		ref.Episodes, ref.Facts, ref.LLM.Calls, ref.LLM.CostUSD)

	t.Run("equals online", func(t *testing.T) {
		base := f.Stub(t)
		job, cp := f.Job(t, "batch", base)
		rep := f.mustRun(t, job, batchMode...)
		if err := harness.CompareDirs(refExport, f.export(t, job, "batch")); err != nil {
			t.Fatalf("the batch run's export differs from the online run's: %v", err)
		}
		st := harness.MustStubStats(t, base)
		b := rep.Batch
		if b == nil || st.ChatCalls != 0 || st.EmbeddingCalls != 0 || st.BatchResubmitted != 0 || int(st.BatchRequests) != b.Requests ||
			int(st.Batches) != b.Batches || b.Pending != 0 || rep.LLM.Calls != b.Requests {
			t.Fatalf("report %+v, llm calls %d (online %d), stub %+v", b, rep.LLM.Calls, ref.LLM.Calls, st)
		}
		checkHalf(t, rep, ref)
		// A unit waiting for its batch runs again in the next wave; it is counted once.
		if !reflect.DeepEqual(rep.ExtractUnits, ref.ExtractUnits) {
			t.Fatalf("extract units %v, online %v", rep.ExtractUnits, ref.ExtractUnits)
		}
		t.Logf("batch: %d batches, %d requests (stub: %d submitted, %d distinct, %d resubmitted, at most %d per request), waves: %s; $%.4f",
			b.Batches, b.Requests, st.BatchRequests, st.BatchDistinct, st.BatchResubmitted, st.BatchMaxSubmissions, waves(rep), rep.LLM.CostUSD)
		// The mode is not part of any fingerprint or cache key: an online run over the batch
		// run's store skips every unit and asks nothing.
		again := f.mustRun(t, job, "--set", "llm.base_url="+onlineBase, "--set", "embedder.base_url="+onlineBase)
		if again.LLM.Calls != 0 || harness.MustStubStats(t, onlineBase).Calls != int64(ref.LLM.Calls) {
			t.Fatalf("an online run after the batch run made %d calls", again.LLM.Calls)
		}
		_ = cp
	})

	t.Run("killed while pending", func(t *testing.T) {
		base := f.Stub(t, "--batch-delay", "600ms")
		job, _ := f.Job(t, "crash", base)
		seed := uint64(1)
		if s, err := strconv.ParseUint(os.Getenv("BACKFILL_CRASH_SEED"), 10, 64); err == nil {
			seed = s
		}
		rng := rand.New(rand.NewPCG(seed, 16))
		// The first SIGINT while the run waits for a batch stops it (exit 130); the batch stays
		// recorded for the next run. (That the wait ends at once, whatever the batch's delay, is
		// llm's TestBatchWaitStops; a wall-clock bound here would only measure the machine.)
		p := f.start(t, job, batchMode...)
		if !p.WaitLines(t.Context(), `msg="waiting for batches"`, 1) {
			res, _ := p.Wait()
			t.Fatalf("the run never waited for a batch: exit %d\n%s", res.Code, tail(res.Stderr))
		}
		_ = p.Signal(os.Interrupt)
		res, err := p.Wait()
		if err != nil || res.Code != 130 {
			t.Fatalf("SIGINT while waiting: exit %d (%v), want 130\n%s", res.Code, err, tail(res.Stderr))
		}
		kills, finished := 0, false
		var at []string
		for kills < 8 && !finished {
			p := f.start(t, job, batchMode...)
			event := []string{`msg="batch submitted"`, `msg="batch delivered"`, `msg="waiting for batches"`}[rng.IntN(3)]
			n := 1 + rng.IntN(2)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			hit := p.WaitLines(ctx, event, n)
			cancel()
			if hit {
				time.Sleep(time.Duration(rng.IntN(250)) * time.Millisecond)
				_ = p.Signal(syscall.SIGKILL)
			}
			res, err := p.Wait()
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case res.Signal != "":
				kills++
				at = append(at, strings.Trim(strings.TrimPrefix(event, "msg="), `"`)+" #"+strconv.Itoa(n)+" in "+lastStage(res))
			case res.Code == 0:
				finished = true
			default:
				t.Fatalf("run after %d kills: exit %d\n%s", kills, res.Code, tail(res.Stderr))
			}
		}
		if kills < 3 {
			t.Fatalf("only %d kills landed (at %v)", kills, at)
		}
		if !finished {
			f.mustRun(t, job, batchMode...)
		}
		if err := harness.CompareDirs(refExport, f.export(t, job, "crash")); err != nil {
			t.Fatalf("after %d kills the export differs from the online run's: %v", kills, err)
		}
		st := harness.MustStubStats(t, base)
		if st.BatchResubmitted != 0 || st.BatchMaxSubmissions != 1 || st.ChatCalls != 0 || st.Repeated != 0 {
			t.Fatalf("after %d kills: stub %+v; want every request submitted once and answered once", kills, st)
		}
		t.Logf("%d SIGKILLs (seed %d) at %v: the stub saw %d requests in %d batches, %d distinct, %d resubmitted, at most %d submissions of one request",
			kills, seed, at, st.BatchRequests, st.Batches, st.BatchDistinct, st.BatchResubmitted, st.BatchMaxSubmissions)
	})

	t.Run("no-wait and status", func(t *testing.T) {
		base := f.Stub(t, "--batch-delay", "300ms")
		job, _ := f.Job(t, "nowait", base)
		res, first := f.run(t, job, append(batchMode, "--no-wait")...)
		if res.Code != 0 || !strings.Contains(res.Stderr, "batches pending (stage extract)") {
			t.Fatalf("--no-wait: exit %d, want 0 and \"N batches pending\"\n%s", res.Code, tail(res.Stderr))
		}
		// The first run counts the requests it sent and the extract units waiting for them.
		if st := harness.MustStubStats(t, base); first.Batch == nil || first.Batch.Requests == 0 || first.Batch.Requests != int(st.BatchRequests) ||
			first.ExtractWaiting == 0 || first.ExtractWaiting != first.Stages["extract"].Pending || first.StoppedAt != "extract" ||
			!regexp.MustCompile(`(?m)^extract +\d+ episodes asked the LLM \(\d+ more wait for a provider batch: their requests are sent\)`).MatchString(res.Stdout) {
			t.Fatalf("--no-wait report: batch %+v, extract waiting %d, stages %v, stopped at %q; stub %+v\n%s",
				first.Batch, first.ExtractWaiting, first.Stages, first.StoppedAt, st, res.Stdout)
		}
		status, err := harness.Run(t.Context(), f.Bin, append([]string{"status", job}, priced...), harness.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if status.Code != 0 || !strings.Contains(status.Stdout, "batches") || !strings.Contains(status.Stdout, "1 open") ||
			!strings.Contains(status.Stdout, "batch_stub") {
			t.Fatalf("status while a batch is pending: exit %d\n%s", status.Code, status.Stdout)
		}
		runs := 1
		var rep report.Report
		for ; runs < 40; runs++ {
			time.Sleep(350 * time.Millisecond)
			res, rep = f.run(t, job, append(batchMode, "--no-wait")...)
			if res.Code != 0 {
				t.Fatalf("--no-wait run %d: exit %d\n%s", runs+1, res.Code, tail(res.Stderr))
			}
			if !rep.Pending() {
				break
			}
		}
		if rep.Pending() {
			t.Fatalf("still pending after %d runs", runs)
		}
		if err := harness.CompareDirs(refExport, f.export(t, job, "nowait")); err != nil {
			t.Fatalf("after %d --no-wait runs the export differs from the online run's: %v", runs+1, err)
		}
		if st := harness.MustStubStats(t, base); st.BatchResubmitted != 0 {
			t.Fatalf("stub %+v", st)
		}
		t.Logf("--no-wait: %d runs to the end", runs+1)
	})

	t.Run("failures, expiry, unreadable lines", func(t *testing.T) {
		base := f.Stub(t, "--batch-fail-rate", "0.1", "--batch-expire-rate", "0.4", "--batch-invalid-rate", "0.05", "--seed", "11")
		job, _ := f.Job(t, "faults", base)
		rep := f.mustRun(t, job, batchMode...)
		if err := harness.CompareDirs(refExport, f.export(t, job, "faults")); err != nil {
			t.Fatalf("the export differs from the online run's: %v", err)
		}
		st, b := harness.MustStubStats(t, base), rep.Batch
		if b == nil || b.Resubmitted == 0 || b.Errors == 0 || b.Unfinished == 0 || b.InvalidLines == 0 || b.Pending != 0 ||
			int(st.BatchResubmitted) != b.Resubmitted || int(st.BatchRequests) != b.Requests || int(st.BatchErrorLines) != b.Errors ||
			int(st.BatchInvalidLines) != b.InvalidLines || st.BatchesExpired == 0 || st.ChatCalls != 0 {
			t.Fatalf("report %+v, stub %+v", b, st)
		}
		checkHalf(t, rep, ref)
		t.Logf("%d batches (%d expired), %d requests of which %d resubmitted: %d error lines, %d left undone, %d unreadable lines; $%.4f at batch prices (online $%.4f)",
			b.Batches, st.BatchesExpired, b.Requests, b.Resubmitted, b.Errors, b.Unfinished, b.InvalidLines, rep.LLM.CostUSD, ref.LLM.CostUSD)
	})
}

// TestBatchVanishingState runs the LoCoMo subset in batch mode against stubs whose batches
// vanish (forgotten after a poll, as after a gateway change, or their result files gone) or
// fail with a reason, and compares each with an online run: the run ends 0 with the same
// export, the lost requests were submitted exactly twice (once more per loss), `status` shows
// no lost batch as open, and a failed batch's reason is in the report and in `status`.
func TestBatchVanishingState(t *testing.T) {
	f := newFixture(t)
	refJob, _ := f.Job(t, "online", f.Stub(t))
	f.mustRun(t, refJob)
	refExport := f.export(t, refJob, "online")

	for _, tc := range []struct{ name, flag string }{
		{"lost batches", "--batch-lose-rate"}, {"lost result files", "--batch-lose-files-rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := f.Stub(t, tc.flag, "0.5", "--seed", "5")
			job, _ := f.Job(t, strings.ReplaceAll(tc.name, " ", "-"), base)
			rep := f.mustRun(t, job, batchMode...)
			if err := harness.CompareDirs(refExport, f.export(t, job, strings.ReplaceAll(tc.name, " ", "-"))); err != nil {
				t.Fatalf("the export differs from the online run's: %v", err)
			}
			st, b := harness.MustStubStats(t, base), rep.Batch
			lost := st.BatchesLost + st.BatchFilesLost
			if b == nil || lost == 0 || int64(b.Lost) != lost || st.BatchLostMinSubmissions != 2 || st.BatchLostMaxSubmissions != 2 ||
				b.Pending != 0 || st.ChatCalls != 0 || st.EmbeddingCalls != 0 {
				t.Fatalf("report %+v, stub %+v: want the lost batches' requests submitted exactly twice", b, st)
			}
			rows := statusBatches(t, f, job)
			if rows.open != 0 || int64(rows.lost) != lost {
				t.Fatalf("status %+v: want no open batch and %d lost", rows, lost)
			}
			for _, r := range rows.lostRows {
				if !strings.Contains(r, "lost (") || !strings.Contains(r, "404") {
					t.Fatalf("a lost batch in status without its state or reason: %q", r)
				}
			}
			t.Logf("%d of %d batches lost (%d request lines, each submitted twice); %d resubmitted in all", lost, st.Batches,
				st.BatchLostRequests, b.Resubmitted)
		})
	}

	t.Run("failed batches", func(t *testing.T) {
		base := f.Stub(t, "--batch-failed-rate", "0.3", "--seed", "7")
		job, _ := f.Job(t, "failed", base)
		res, rep := f.run(t, job, batchMode...)
		if res.Code != 0 {
			t.Fatalf("exit %d\n%s", res.Code, tail(res.Stderr))
		}
		if err := harness.CompareDirs(refExport, f.export(t, job, "failed")); err != nil {
			t.Fatalf("the export differs from the online run's: %v", err)
		}
		st, b := harness.MustStubStats(t, base), rep.Batch
		const reason = "stub_batch_failed: stub: injected batch failure"
		if st.BatchesFailed == 0 || b == nil || len(b.Failures) == 0 || !strings.Contains(b.Failures[0].Reason, reason) ||
			!strings.Contains(res.Stdout, "batch failed") || !strings.Contains(res.Stdout, reason) {
			t.Fatalf("stub %+v, report %+v: want the failed batches' reason in the report\n%s", st, b, res.Stdout)
		}
		rows := statusBatches(t, f, job)
		if rows.open != 0 || !strings.Contains(rows.text, reason) {
			t.Fatalf("status: want the failed batches' reason\n%s", rows.text)
		}
		t.Logf("%d of %d batches failed; the report names %d with their reason", st.BatchesFailed, st.Batches, len(b.Failures))
	})
}

// batchRows is what `status` says of a store's batches.
type batchRows struct {
	open, lost int
	lostRows   []string
	text       string
}

// statusBatches runs `status` on a job and reads its batches line and the rows of lost batches.
func statusBatches(t *testing.T, f *fixture, job string) batchRows {
	t.Helper()
	res, err := harness.Run(t.Context(), f.Bin, append([]string{"status", job}, priced...), harness.Options{})
	if err != nil || res.Code != 0 {
		t.Fatalf("status: exit %d (%v)\n%s", res.Code, err, res.Stderr)
	}
	r := batchRows{text: res.Stdout}
	for _, line := range strings.Split(res.Stdout, "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 7 && fields[0] == "batches":
			r.open, _ = strconv.Atoi(fields[1])
			r.lost, _ = strconv.Atoi(fields[5])
		case len(fields) > 3 && fields[3] == "lost":
			r.lostRows = append(r.lostRows, line)
		}
	}
	return r
}

// checkHalf requires the batch run's cost to be its tokens at the built-in batch prices of
// gpt-4o-mini and text-embedding-3-small (embeddings count under "embed"), in llm.cost_usd and
// batch.cost_usd, and about half the online run's (the same requests; concurrent online units
// can send a duplicate request or two).
func checkHalf(t *testing.T, rep, ref report.Report) {
	t.Helper()
	prices := pacing.DefaultPrices()
	chat, _ := prices.Lookup("gpt-4o-mini")
	emb, _ := prices.Lookup("text-embedding-3-small")
	want := 0.0
	for stage, u := range rep.LLMByStage {
		p := chat.Batch()
		if stage == "embed" {
			p = emb.Batch()
		}
		want += p.Estimate(u.PromptTokens, u.CompletionTokens)
	}
	if rep.LLM.CostUSD == 0 || math.Abs(rep.LLM.CostUSD-want) > 1e-9 || math.Abs(rep.Batch.CostUSD-want) > 1e-9 {
		t.Fatalf("batch run cost $%.6f (batch $%.6f), want $%.6f: its tokens at batch prices", rep.LLM.CostUSD, rep.Batch.CostUSD, want)
	}
	if r := rep.LLM.CostUSD / ref.LLM.CostUSD; r < 0.49 || r > 0.51 || far(rep.LLM.PromptTokens, ref.LLM.PromptTokens) ||
		far(rep.LLM.CompletionTokens, ref.LLM.CompletionTokens) {
		t.Fatalf("batch run: tokens %d/%d at $%.6f; online %d/%d at $%.6f: want the same tokens at half the cost",
			rep.LLM.PromptTokens, rep.LLM.CompletionTokens, rep.LLM.CostUSD, ref.LLM.PromptTokens, ref.LLM.CompletionTokens, ref.LLM.CostUSD)
	}
}

// far reports whether a is more than 1% away from b.
func far(a, b int) bool { return math.Abs(float64(a-b)) > 0.01*float64(b) }

// lastStage is the stage a killed run was in.
func lastStage(res harness.Result) string {
	for i := len(res.Events) - 1; i >= 0; i-- {
		if !res.Events[i].Finished {
			return res.Events[i].Stage
		}
	}
	return "?"
}
