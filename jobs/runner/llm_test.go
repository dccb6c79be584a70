package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/report"
)

func runErr(t *testing.T, j *pipeline.Job, env map[string]string, log *bytes.Buffer) (*report.Report, error) {
	t.Helper()
	opts := Options{Clock: graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)),
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	if log != nil {
		opts.Log = newTestLogger(log)
	}
	return Run(context.Background(), j, opts)
}

// TestFaultyStubSameGraph: the demo against the stub with a 20% fault rate (every kind) ends
// with the export of a fault-free run, after retries, and nothing is answered twice.
func TestFaultyStubSameGraph(t *testing.T) {
	clean := stubJob(t, startStub(t, stub.New(stub.Options{})))
	mustRun(t, clean)
	// The timeout fault holds a request past the client's 1.5 s timeout; 1.5 s leaves the
	// normal answers room on a loaded machine (an answer cut off would be paid twice).
	s := stub.New(stub.Options{FaultRate: 0.2, Seed: 1, RetryAfter: 20 * time.Millisecond, Stall: 4 * time.Second})
	faulty := stubJob(t, startStub(t, s), "llm.timeout_seconds=1.5")
	rep := mustRun(t, faulty)
	sameExport(t, export(t, clean), export(t, faulty))
	st := s.Stats()
	if rep.LLM.Retries == 0 || st.Faults == 0 || len(st.FaultsByKind) != len(stub.AllFaults()) || st.Repeated != 0 {
		t.Fatalf("retries %d, stub %+v", rep.LLM.Retries, st)
	}
	if rep.LLM.MaxInFlight > clean.LLM.Concurrency || st.MaxInFlight > clean.LLM.Concurrency {
		t.Fatalf("in flight: report %d, stub %d, limit %d", rep.LLM.MaxInFlight, st.MaxInFlight, clean.LLM.Concurrency)
	}
	if rep.LLM.CostUSD <= 0 || rep.LLMByStage["extract"].CostUSD <= 0 {
		t.Fatalf("cost not filled: %+v", rep.LLM)
	}
}

// TestBudgetStopAndResume: a tiny budget stops the run with the budget error; a higher one
// finishes it, the stub answers no logical request twice, and the graph equals an
// uninterrupted run's.
func TestBudgetStopAndResume(t *testing.T) {
	s := stub.New(stub.Options{})
	base := startStub(t, s)
	j := stubJob(t, base, "limits.max_cost_usd=0.003")
	rep, err := runErr(t, j, nil, nil)
	if !errors.Is(err, pacing.ErrBudgetExceeded) || rep == nil || !rep.BudgetStopped {
		t.Fatalf("first run: %v, report %+v", err, rep)
	}
	if rep.LLM.CostUSD > 0.003 || rep.LLM.Calls == 0 {
		t.Fatalf("first run spent $%v in %d calls", rep.LLM.CostUSD, rep.LLM.Calls)
	}
	first := s.Stats().Answered
	j.Limits.MaxCostUSD = 100
	rep2, err := runErr(t, j, nil, nil)
	if err != nil || rep2.BudgetStopped {
		t.Fatalf("second run: %v", err)
	}
	if st := s.Stats(); st.Repeated != 0 || st.Answered <= first {
		t.Fatalf("stub after the resume: %+v", st)
	}
	if rep2.Stages["extract"].Skipped == 0 {
		t.Fatal("the resumed run skipped no extraction finished before the stop")
	}
	whole := stubJob(t, startStub(t, stub.New(stub.Options{})))
	mustRun(t, whole)
	sameExport(t, export(t, whole), export(t, j))
}

// TestPromptOverrideRerunsOneStage: replacing the judge_fact template re-asks only temporal
// judgements; the stages after it re-run their units from the cache.
func TestPromptOverrideRerunsOneStage(t *testing.T) {
	j := demoJob(t)
	first := mustRun(t, j)
	if first.LLMByStage["temporal"].Calls == 0 || first.LLMByStage["community"].Calls == 0 {
		t.Fatalf("the demo makes no temporal or community calls: %+v", first.LLMByStage)
	}
	j.LLM.PromptsDir = jobstest.PromptsDir(t, wire.TaskJudgeFact, "\nBe brief.")
	second := mustRun(t, j)
	if st := second.Stages["extract"]; st.Units != 0 || second.LLMByStage["extract"].Calls != 0 {
		t.Fatalf("extract re-ran: %+v %+v", st, second.LLMByStage["extract"])
	}
	if got, want := second.LLMByStage["temporal"].Calls, first.LLMByStage["temporal"].Calls; got != want {
		t.Fatalf("temporal made %d calls, want all %d again", got, want)
	}
	for _, s := range []string{"summarize", "community"} {
		u := second.LLMByStage[s]
		if u.Calls != 0 || u.CacheHits != first.LLMByStage[s].Calls {
			t.Errorf("%s: %+v, want only cache hits (%d)", s, u, first.LLMByStage[s].Calls)
		}
	}
}

// TestAPIKeyNeverLeaks plants a key and a server that echoes the Authorization header in its
// error bodies; the key must not reach the logs, the report, the errors or the store.
func TestAPIKeyNeverLeaks(t *testing.T) {
	const key = "sk-planted-3c9e1f7a5b"
	env := map[string]string{"OPENAI_API_KEY": key}
	s := stub.New(stub.Options{})
	var mu sync.Mutex
	seen := map[string]bool{}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		first := !seen[string(body)]
		seen[string(body)] = true
		fail := first && len(seen)%10 == 1 // the first attempt of every tenth request
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error":{"message":"bad gateway for ` + r.Header.Get("Authorization") + `"}}`))
			return
		}
		s.ServeHTTP(w, r)
	})
	var logs bytes.Buffer
	j := stubJob(t, startStub(t, echo))
	rep, err := runErr(t, j, env, &logs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.LLM.Retries == 0 {
		t.Fatal("no retries: the echoing errors were not exercised")
	}
	denied := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"invalid key ` + r.Header.Get("Authorization") + `"}}`))
	})
	j2 := stubJob(t, startStub(t, denied))
	_, err = runErr(t, j2, env, &logs)
	if err == nil || !transport.IsFatal(err) {
		t.Fatalf("401 run: %v", err)
	}
	checkNoKey(t, key, "error", []byte(err.Error()))
	checkNoKey(t, key, "logs", logs.Bytes())
	checkNoKey(t, key, "report", reportJSON(t, rep))
	for _, jj := range []*pipeline.Job{j, j2} {
		files, _ := filepath.Glob(jj.Checkpoint + "*")
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkNoKey(t, key, f, b)
		}
	}
	if !bytes.Contains(logs.Bytes(), []byte("llm request retry")) {
		t.Fatal("retries were not logged: the log check saw nothing")
	}
}

func checkNoKey(t *testing.T, key, where string, b []byte) {
	t.Helper()
	if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte(key[3:])) {
		t.Errorf("the API key leaked into %s", where)
	}
}
