package localllm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages/extract"
	"github.com/tkgraph/backfill/tests/harness"
)

// TestLocalModelSmoke runs the smoke job twice against the local model server and checks the
// mechanics any model must satisfy (see the package doc). So that the failure path is taken
// whatever the model answers, the first run's extraction of the episodes that mention spoiled
// gets an empty answer from the test's proxy instead of the model's.
func TestLocalModelSmoke(t *testing.T) {
	m := testenv.LocalModel(t)
	bin := harness.BuildBinary(t)
	sp := &spoiler{marker: spoiled}
	proxy := startProxy(t, m.URL, sp)
	dir := t.TempDir()
	job, checkpoint := smokeJob(t, dir, proxy.URL, m.Model, wire.FormatJSONObjectSchema, "", 1)

	start := time.Now()
	res, rep := runJob(t, bin, job, filepath.Join(dir, "first.json"))
	first := time.Since(start)
	checkRun(t, "first run", res, rep)
	answers := proxy.Answers()
	checkUsage(t, "first run", rep, answers)
	checkStored(t, checkpoint, answers)
	failed := failedUnits(t, checkpoint)
	if len(failed) != rep.FailedUnits {
		t.Errorf("first run: %d failed units in the store, the report says %d", len(failed), rep.FailedUnits)
	}
	byStage := map[string]int{}
	emptied := 0
	for _, f := range failed {
		byStage[f.Stage]++
		if f.Reason == "" {
			t.Errorf("failed unit %s/%s recorded without a reason", f.Stage, f.Unit)
		}
		if f.Stage == extract.Stage && strings.Contains(f.Reason, "empty answer") {
			emptied++
		}
	}
	if n := sp.count(); n == 0 || emptied != spoiledEpisodes {
		t.Errorf("first run: %d answers spoiled, %d extract units failed on an empty answer; want the %d episodes mentioning %s",
			n, emptied, spoiledEpisodes, spoiled)
	}
	t.Logf("first run: exit %d in %s; llm %d calls, %d tokens in, %d out, %d invalid answers, %d cut at max_tokens; repaired %v; failed units by stage %v",
		res.Code, first.Round(time.Second), rep.LLM.Calls, rep.LLM.PromptTokens, rep.LLM.CompletionTokens,
		rep.LLM.InvalidAnswers, rep.LLM.Truncated, rep.LLM.AnswersRepaired, byStage)

	// The next run retries the failed units and nothing else of the extraction.
	sp.off()
	start = time.Now()
	res, rep2 := runJob(t, bin, job, filepath.Join(dir, "second.json"))
	checkRun(t, "second run", res, rep2)
	checkUsage(t, "second run", rep2, proxy.Answers()[len(answers):])
	checkStored(t, checkpoint, proxy.Answers())
	ex := rep2.Stages[extract.Stage]
	if ex.Units != byStage[extract.Stage] || ex.Skipped != rep.Episodes-byStage[extract.Stage] {
		t.Errorf("second run extract: %+v; want the %d failed units run and the other %d skipped", ex,
			byStage[extract.Stage], rep.Episodes-byStage[extract.Stage])
	}
	for stage, n := range byStage {
		if st := rep2.Stages[stage]; st.Units < n {
			t.Errorf("second run %s: %d units run, fewer than the %d that failed", stage, st.Units, n)
		}
	}
	t.Logf("second run: exit %d in %s; %d failed units left; extract %+v", res.Code, time.Since(start).Round(time.Second),
		rep2.FailedUnits, ex)
}

// checkRun requires exit 0 without failed units or exit 3 with some.
func checkRun(t *testing.T, name string, res harness.Result, rep report.Report) {
	t.Helper()
	if !(res.Code == 0 && rep.FailedUnits == 0 || res.Code == 3 && rep.FailedUnits > 0) {
		t.Fatalf("%s: exit %d with %d failed units; want 0 and none, or 3 and some\n%s", name, res.Code, rep.FailedUnits, res.Stderr)
	}
	if rep.Episodes == 0 {
		t.Fatalf("%s: no episodes", name)
	}
}

// checkUsage requires the report's chat token counts to be the sums of the usage blocks the
// server sent (the embedder is offline and in process, under the "embed" stage).
func checkUsage(t *testing.T, name string, rep report.Report, answers []harness.Answer) {
	t.Helper()
	var in, out int
	for _, a := range answers {
		in += a.Usage.PromptTokens
		out += a.Usage.CompletionTokens
	}
	var rin, rout int
	for stage, u := range rep.LLMByStage {
		if stage != "embed" {
			rin += u.PromptTokens
			rout += u.CompletionTokens
		}
	}
	if in == 0 && len(answers) > 0 {
		t.Errorf("%s: the server reported no usage", name)
	}
	if rin != in || rout != out {
		t.Errorf("%s: report counts %d/%d tokens in/out, the server reported %d/%d", name, rin, rout, in, out)
	}
}

// checkStored requires every answer the server gave that the cache holds to validate against
// its task's schema, and some to be held.
func checkStored(t *testing.T, checkpoint string, answers []harness.Answer) {
	t.Helper()
	ctx := context.Background()
	s := harness.OpenStore(t, checkpoint)
	defer s.Close()
	stored := 0
	for _, a := range answers {
		task, err := wire.LookupTask(a.Task)
		if err != nil {
			t.Errorf("an answer of no known task %q", a.Task)
			continue
		}
		for _, k := range a.Keys {
			e, ok, err := s.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			stored++
			if err := task.Schema.Validate(e.Response); err != nil {
				t.Errorf("a stored %s answer does not validate: %v\n%s", a.Task, err, e.Response)
			}
		}
	}
	if stored == 0 {
		t.Error("no answer of the model was stored")
	}
}

// failedUnits reads the units recorded as failed.
func failedUnits(t *testing.T, checkpoint string) []checkpoints.FailedUnit {
	t.Helper()
	ctx := context.Background()
	s := harness.OpenStore(t, checkpoint)
	defer s.Close()
	var out []checkpoints.FailedUnit
	if err := s.EachFailedUnit(ctx, func(f checkpoints.FailedUnit) error { out = append(out, f); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// spoiled marks the episodes whose extraction the spoiler empties on the first run: the
// current episode's content mentions it (two episodes of the smoke input).
const (
	spoiled         = "Pangyo"
	spoiledEpisodes = 2
)

// spoiler answers the extraction requests whose current episode mentions marker with an empty
// answer, until off; every other request goes to next.
type spoiler struct {
	next   http.Handler
	marker string
	mu     sync.Mutex
	done   bool
	n      int
}

func (s *spoiler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "reading body", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if s.spoils(body) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0}}`)
		return
	}
	s.next.ServeHTTP(w, r)
}

// spoils reports whether a request is an extraction of an episode that mentions the marker,
// and counts it.
func (s *spoiler) spoils(body []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var req wire.ChatRequest
	if s.done || json.Unmarshal(body, &req) != nil {
		return false
	}
	if task := wire.RequestTask(req); task != wire.TaskExtract && task != wire.TaskExtractEntities && task != wire.TaskExtractFacts {
		return false
	}
	user := req.Messages[len(req.Messages)-1].Content
	_, input, ok := strings.Cut(user, wire.InputFence)
	var in struct {
		Episode wire.EpisodeIn `json:"episode"`
	}
	if !ok || json.Unmarshal([]byte(strings.TrimSuffix(input, "\n```")), &in) != nil || !strings.Contains(in.Episode.Content, s.marker) {
		return false
	}
	s.n++
	return true
}

func (s *spoiler) off() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
}

func (s *spoiler) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// startProxy serves a Recorder in front of sp in front of the server at upstream (a base URL
// ending in /v1) and returns the Recorder and its base URL.
func startProxy(t *testing.T, upstream string, sp *spoiler) *recorded {
	t.Helper()
	u, err := url.Parse(strings.TrimSuffix(upstream, "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	sp.next = httputil.NewSingleHostReverseProxy(u)
	rec := harness.NewRecorder(sp, nil)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return &recorded{Recorder: rec, URL: srv.URL + "/v1"}
}

// recorded is a Recorder and the base URL it serves.
type recorded struct {
	*harness.Recorder
	URL string
}
