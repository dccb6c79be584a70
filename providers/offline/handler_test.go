package offline

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/embed/hashing"
	"github.com/tkgraph/backfill/llm/wire"
)

// chatBody builds a chat completions request the way the client renders one: a system message,
// then a user message ending with the input block, plus any extra messages.
func chatBody(t *testing.T, task string, input any, extra ...map[string]string) []byte {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []map[string]string{
		{"role": "system", "content": "You extract facts."},
		{"role": "user", "content": "Rules…\n" + wire.InputFence + string(raw) + "\n```"},
	}
	body := map[string]any{"model": "offline", "temperature": 0, "messages": append(msgs, extra...),
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": task, "strict": true, "schema": map[string]any{}}}}
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t *testing.T, h http.Handler, path string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body)))
	return rec
}

func TestChatAnswersEveryTask(t *testing.T) {
	inputs := map[string]any{
		wire.TaskExtract: message("Alice", "I left Kakao on March 2 and joined Naver."),
		wire.TaskJudgeFact: wire.JudgeInput{ReferenceTime: testRef,
			New:        wire.FactIn{Predicate: "WORKS_AT", Fact: "Alice works at Naver.", ValidAt: ptr(testRef)},
			Candidates: []wire.FactIn{{ID: "I0", Predicate: "WORKS_AT", Fact: "Alice works at Kakao."}}},
		wire.TaskSummarize:       wire.SummarizeInput{Entities: []wire.EntityFactsIn{{ID: "1", Name: "Alice", Facts: []string{"Alice works at Naver."}}}},
		wire.TaskMergeSummaries:  wire.MergeInput{Summaries: []string{"Alice works at Naver.", "Naver is in Pangyo."}},
		wire.TaskNameCommunity:   wire.NameInput{Summary: "Alice works at Naver."},
		wire.TaskExtractEntities: message("Alice", "I work at Naver."),
		wire.TaskExtractFacts: wire.FactsInput{Episode: message("Alice", "I work at Naver.").Episode,
			Entities: []wire.ExtractedEntity{{Name: "Alice", Type: "Entity"}, {Name: "Naver", Type: "Entity"}}},
		wire.TaskResolveEntities: wire.ResolveInput{Entities: []wire.CandidateIn{{ID: "N0", Name: "Alice Kim"}, {ID: "N1", Name: "Alice"}},
			Pairs: []wire.PairIn{{ID: "P0", A: "N0", B: "N1"}}},
		wire.TaskDedupeFacts: wire.DedupeInput{Facts: []wire.FactIn{{ID: "F0", Fact: "Alice works at Naver."}, {ID: "F1", Fact: "alice works at Naver"}},
			Pairs: []wire.PairIn{{ID: "P0", A: "F0", B: "F1"}}},
		wire.TaskAnswerQuestion: wire.AnswerInput{QuestionTime: testRef, Question: "Where does Alice work?",
			Context: "<FACTS>\n  - Alice works at Naver. (Date range: 2024-03-02T00:00:00Z - present)\n</FACTS>"},
		wire.TaskGradeAnswer: wire.GradeInput{Question: "Where does Alice work?", GoldAnswer: "Naver", Answer: "Alice works at Naver."},
		wire.TaskExtractWindow: wire.WindowInput{Episodes: []wire.WindowEpisodeIn{
			{N: 1, ReferenceTime: testRef, Source: "message", Speaker: "Alice", Content: "I work at Naver."}}},
	}
	h := NewHandler(Options{})
	for _, task := range wire.Tasks() {
		t.Run(task, func(t *testing.T) {
			input, ok := inputs[task]
			if !ok {
				t.Fatalf("no test input for task %s", task)
			}
			body := chatBody(t, task, input)
			for _, path := range []string{"/v1/chat/completions", "/chat/completions", "/openai/v1/chat/completions/"} {
				rec := post(t, h, path, body)
				if rec.Code != http.StatusOK {
					t.Fatalf("%s: status %d: %s", path, rec.Code, rec.Body)
				}
				var resp chatResponse
				if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
					t.Fatal(err)
				}
				if len(resp.Choices) != 1 || resp.Choices[0].FinishReason != "stop" || resp.Choices[0].Message.Role != "assistant" {
					t.Fatalf("bad choices: %+v", resp.Choices)
				}
				content := resp.Choices[0].Message.Content
				spec, err := wire.LookupTask(task)
				if err != nil {
					t.Fatal(err)
				}
				if err := spec.Schema.Validate([]byte(content)); err != nil {
					t.Errorf("answer %s does not match the %s schema: %v", content, task, err)
				}
				var req chatRequest
				json.Unmarshal(body, &req)
				// the json_schema response format's schema is billed as prompt, as OpenAI does
				promptBytes := len(req.ResponseFormat.PromptSchema())
				if promptBytes == 0 {
					t.Fatalf("the request sends no json_schema schema: %s", body)
				}
				for _, m := range req.Messages {
					promptBytes += len(m.text())
				}
				u := resp.Usage
				if u.PromptTokens != int(math.Ceil(float64(promptBytes)/4)) || u.CompletionTokens != int(math.Ceil(float64(len(content))/4)) ||
					u.TotalTokens != u.PromptTokens+u.CompletionTokens || u.CompletionTokens == 0 {
					t.Errorf("usage %+v for %d prompt bytes and %d answer bytes", u, promptBytes, len(content))
				}
			}
		})
	}
}

func TestChatDeterministic(t *testing.T) {
	h := NewHandler(Options{})
	body := chatBody(t, wire.TaskExtract, message("지훈", "3월 2일에 카카오를 그만두고 네이버로 이직했어요. 보고서는 금요일까지 끝낼 거예요."))
	first := post(t, h, "/v1/chat/completions", body).Body.String()
	for range 5 {
		if again := post(t, h, "/v1/chat/completions", body).Body.String(); again != first {
			t.Fatalf("answers differ:\n%s\n%s", first, again)
		}
	}
	if !strings.Contains(first, "네이버") {
		t.Errorf("answer misses the fact: %s", first)
	}
}

func TestChatReadsLastFencedUserMessage(t *testing.T) {
	h := NewHandler(Options{})
	body := chatBody(t, wire.TaskExtract, message("Alice", "I work at Kakao."),
		map[string]string{"role": "assistant", "content": "{}"},
		map[string]string{"role": "user", "content": "Your answer failed validation: facts: missing. Answer again."})
	rec := post(t, h, "/v1/chat/completions", body)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Alice works at Kakao.") {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
}

func TestChatErrors(t *testing.T) {
	h := NewHandler(Options{})
	good := chatBody(t, wire.TaskExtract, message("Alice", "hi"))
	tests := []struct {
		name, method, path string
		body               []byte
		status             int
		code               string
	}{
		{"unknown task", "POST", "/v1/chat/completions", chatBody(t, "write_poem", map[string]string{}), 400, "unknown_task"},
		{"no response format", "POST", "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`), 400, "unknown_task"},
		{"no input block", "POST", "/v1/chat/completions",
			[]byte(`{"messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"extract_graph"}}}`), 400, "invalid_input"},
		{"bad input JSON", "POST", "/v1/chat/completions",
			[]byte(`{"messages":[{"role":"user","content":"x` + strings.ReplaceAll(wire.InputFence, "\n", `\n`) + `{\"episode\": 3}\n` + "```" + `"}],"response_format":{"type":"json_schema","json_schema":{"name":"extract_graph"}}}`), 400, "invalid_input"},
		{"bad JSON", "POST", "/v1/chat/completions", []byte(`{`), 400, "invalid_json"},
		{"wrong method", "GET", "/v1/chat/completions", nil, 405, "method_not_allowed"},
		{"unknown path", "POST", "/v1/completions", good, 404, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, bytes.NewReader(tt.body)))
			var e errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil {
				t.Fatalf("error body is not JSON: %s", rec.Body)
			}
			if rec.Code != tt.status || e.Error.Code != tt.code || e.Error.Message == "" || e.Error.Type == "" {
				t.Errorf("got %d %+v, want %d %s", rec.Code, e.Error, tt.status, tt.code)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("content type %q", ct)
			}
		})
	}
}

func TestEmbeddings(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		body     string
		dims     int
		texts    []string
		model    string
		status   int
		errorMsg string
	}{
		{"list with dimensions", Options{}, `{"model":"text-embedding-3-small","input":["Alice works at Kakao","지훈은 카카오에서 일한다"],"dimensions":64}`,
			64, []string{"Alice works at Kakao", "지훈은 카카오에서 일한다"}, "text-embedding-3-small", 200, ""},
		{"string input, default dims", Options{}, `{"input":"Kakao"}`, 256, []string{"Kakao"}, "hashing-v1", 200, ""},
		{"handler default dims", Options{Dims: 32}, `{"model":"m","input":["a b c"]}`, 32, []string{"a b c"}, "m", 200, ""},
		{"empty list", Options{}, `{"input":[]}`, 0, nil, "", 400, "invalid_input"},
		{"token input", Options{}, `{"input":[[1,2,3]]}`, 0, nil, "", 400, "invalid_input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := post(t, NewHandler(tt.opts), "/v1/embeddings", []byte(tt.body))
			if rec.Code != tt.status {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if tt.status != 200 {
				return
			}
			var resp embeddingsResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			want, _ := hashing.Embedder{Dims: tt.dims}.Embed(t.Context(), tt.texts)
			if resp.Model != tt.model || len(resp.Data) != len(tt.texts) || resp.Usage.PromptTokens == 0 {
				t.Fatalf("response %+v", resp)
			}
			for i, d := range resp.Data {
				if d.Index != i || len(d.Embedding) != tt.dims {
					t.Fatalf("data[%d]: index %d, %d dims", i, d.Index, len(d.Embedding))
				}
				for j := range d.Embedding {
					if d.Embedding[j] != want[i][j] {
						t.Fatalf("data[%d] differs from the hashing embedder at %d", i, j)
					}
				}
			}
		})
	}
}
