package temporal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/jobs/runner"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/offline"
	"github.com/tkgraph/backfill/report"
)

// group is the group of every scenario episode.
const group = "u"

// ep is one input episode: a message of speaker, or a JSON record when content starts with "{".
type ep struct{ ref, speaker, content string }

// jobSpec is how a scenario job runs.
type jobSpec struct {
	dir        string // holds the inputs and the checkpoint
	recordTime string // reference (default) or ingest
	baseURL    string // an OpenAI-compatible server instead of the in-process offline responder
	extra      string // more top-level YAML (an ontology)
}

// writeInputs writes the episodes as the job's JSON Lines inputs.
func writeInputs(t *testing.T, dir string, eps []ep) {
	t.Helper()
	var msgs, recs bytes.Buffer
	for i, e := range eps {
		if strings.HasPrefix(e.content, "{") {
			fmt.Fprintf(&recs, `{"group_id":%q,"reference_time":%q,"record_key":"r%d","record":%s}`+"\n", group, e.ref, i, e.content)
			continue
		}
		line, _ := json.Marshal(map[string]string{"group_id": group, "reference_time": e.ref, "speaker": e.speaker, "content": e.content})
		msgs.Write(append(line, '\n'))
	}
	for name, b := range map[string][]byte{"messages.jsonl": msgs.Bytes(), "records.jsonl": recs.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadJob builds the scenario job over dir's inputs.
func loadJob(t *testing.T, s jobSpec) *pipeline.Job {
	t.Helper()
	rt, llmConf := s.recordTime, "provider: offline"
	if rt == "" {
		rt = "reference"
	}
	if s.baseURL != "" {
		llmConf = fmt.Sprintf("provider: openai\n  base_url: %s\n  model: gpt-4o-mini", s.baseURL)
	}
	yml := fmt.Sprintf(`name: scenario
checkpoint: %[1]s/s.db
timezone: UTC
record_time: %[2]s
sources:
  - path: %[1]s/messages.jsonl
    format: jsonl
    source: message
    mapping: {group: group_id, reference_time: reference_time, speaker: speaker, body: content}
  - path: %[1]s/records.jsonl
    format: jsonl
    source: json
    mapping: {group: group_id, reference_time: reference_time, record_key: record_key, body: record}
llm:
  %[3]s
  concurrency: 2
embedder:
  provider: offline
  dimensions: 16
%[4]s
`, s.dir, rt, llmConf, s.extra)
	j, err := pipeline.Parse([]byte(yml), nil, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// runJob runs the job with the wall clock fixed at now and returns its report.
func runJob(t *testing.T, j *pipeline.Job, now time.Time) *report.Report {
	t.Helper()
	rep, err := runner.Run(context.Background(), j, runner.Options{Clock: graph.FixedClock(now),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// state is a group's facts and version log as stored.
type state struct {
	facts    []graph.Fact
	versions []graph.FactVersion
}

func readState(t *testing.T, j *pipeline.Job) state {
	t.Helper()
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var s state
	if err := store.EachFact(ctx, group, func(f graph.Fact) error { s.facts = append(s.facts, f); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := store.EachFactVersion(ctx, group, func(v graph.FactVersion) error { s.versions = append(s.versions, v); return nil }); err != nil {
		t.Fatal(err)
	}
	return s
}

// testLLM serves the offline responder, counting judge_fact requests, with two optional
// distortions:
//   - judge: answers judge_fact in place of the offline responder, as another model would;
//   - literal: extraction takes claimed dates at face value, as a model might: a plan is dated
//     at the date in its sentence (valid_at = invalid_at = the deadline), and a fact stated in an
//     episode that mentions 2027 starts on 2027-01-01, so the stage's own rules must fix them.
type testLLM struct {
	next      http.Handler
	judge     func(wire.JudgeInput) wire.JudgeOutput
	literal   bool
	judged    atomic.Int64 // judge_fact requests
	rewritten atomic.Int64 // extracted facts whose dates the literal mode changed
}

func newTestLLM(t *testing.T, judge func(wire.JudgeInput) wire.JudgeOutput, literal bool) (*testLLM, string) {
	t.Helper()
	e := &testLLM{next: offline.NewHandler(offline.Options{}), judge: judge, literal: literal}
	srv := httptest.NewServer(e)
	t.Cleanup(srv.Close)
	return e, srv.URL + "/v1"
}

func (e *testLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req wire.ChatRequest
	task := ""
	if json.Unmarshal(body, &req) == nil && req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil {
		task = req.ResponseFormat.JSONSchema.Name
	}
	if task == wire.TaskJudgeFact {
		e.judged.Add(1)
	}
	if task == wire.TaskJudgeFact && e.judge != nil {
		var in wire.JudgeInput
		if err := decodeInput(req, &in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer(w, e.judge(in), len(body))
		return
	}
	rec := httptest.NewRecorder()
	r.Body = io.NopCloser(bytes.NewReader(body))
	e.next.ServeHTTP(rec, r)
	extracting := task == wire.TaskExtract || task == wire.TaskExtractFacts
	if !extracting || !e.literal || rec.Code != http.StatusOK {
		copyResponse(w, rec)
		return
	}
	// Both extraction answers carry "facts"; other keys pass through unchanged.
	var in struct{ Episode wire.EpisodeIn }
	var resp wire.ChatResponse
	var out map[string]json.RawMessage
	var facts []wire.ExtractedFact
	if decodeInput(req, &in) != nil || json.Unmarshal(rec.Body.Bytes(), &resp) != nil ||
		json.Unmarshal([]byte(resp.Choices[0].Message.Content), &out) != nil || json.Unmarshal(out["facts"], &facts) != nil {
		copyResponse(w, rec)
		return
	}
	for i, f := range facts {
		d := ""
		switch {
		case f.Kind == wire.KindPlan && isoDate.FindString(f.Fact) != "":
			d = isoDate.FindString(f.Fact) + "T00:00:00Z"
			facts[i].InvalidAt = &d
		case strings.Contains(in.Episode.Content, "2027"):
			d = "2027-01-01T00:00:00Z"
		default:
			continue
		}
		facts[i].ValidAt = &d
		e.rewritten.Add(1)
	}
	out["facts"], _ = json.Marshal(facts)
	answer(w, out, len(body))
}

var isoDate = regexp.MustCompile(`\d{4}-\d{2}-\d{2}`)

// decodeInput reads the task input fenced at the end of the last user message.
func decodeInput(req wire.ChatRequest, v any) error {
	last := req.Messages[len(req.Messages)-1].Content
	i, j := strings.LastIndex(last, wire.InputFence), strings.LastIndex(last, "\n```")
	if i < 0 || j < i {
		return fmt.Errorf("no input block")
	}
	return json.Unmarshal([]byte(last[i+len(wire.InputFence):j]), v)
}

// answer writes v as the content of a chat completion.
func answer(w http.ResponseWriter, v any, promptBytes int) {
	content, _ := json.Marshal(v)
	resp := wire.ChatResponse{Choices: []wire.Choice{{Message: wire.ChatMessage{Role: wire.RoleAssistant, Content: string(content)},
		FinishReason: "stop"}}, Usage: &wire.TokenUsage{PromptTokens: promptBytes / 4, CompletionTokens: len(content) / 4}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func copyResponse(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}
