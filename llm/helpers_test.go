package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// reply is one scripted answer of the fake server.
type reply struct {
	status  int
	header  map[string]string
	body    string // raw body; when empty, content is wrapped in a chat response
	content string
	finish  string // the choice's finish_reason
}

// fakeServer answers chat requests with scripted replies (the last one repeats) and records
// the requests it got.
type fakeServer struct {
	mu       sync.Mutex
	replies  []reply
	requests []wire.ChatRequest
	headers  []http.Header
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req wire.ChatRequest
	_ = json.Unmarshal(raw, &req)
	f.mu.Lock()
	i := len(f.requests)
	f.requests = append(f.requests, req)
	f.headers = append(f.headers, r.Header.Clone())
	rep := f.replies[min(i, len(f.replies)-1)]
	f.mu.Unlock()
	for k, v := range rep.header {
		w.Header().Set(k, v)
	}
	body := rep.body
	if body == "" {
		resp := wire.ChatResponse{
			Choices: []wire.Choice{{Message: wire.ChatMessage{Role: wire.RoleAssistant, Content: rep.content}, FinishReason: rep.finish}},
			Usage: &wire.TokenUsage{PromptTokens: 100, CompletionTokens: 20,
				CompletionTokensDetails: &wire.CompletionTokensDetails{ReasoningTokens: 5}},
		}
		b, _ := json.Marshal(resp)
		body = string(b)
	}
	if rep.status != 0 {
		w.WriteHeader(rep.status)
	}
	_, _ = io.WriteString(w, body)
}

func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

func (f *fakeServer) request(i int) wire.ChatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[i]
}

// newTestClient starts an httptest server around f and returns a client with fast retries.
func newTestClient(t *testing.T, f http.Handler, cache Cache, tweak func(*Options)) *Client {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := Options{BaseURL: srv.URL + "/v1", Model: "test-model", APIKey: "sk-test",
		BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond}
	if tweak != nil {
		tweak(&opts)
	}
	return NewClient(opts, srv.Client(), nil, cache)
}

const validExtract = `{"entities":[{"name":"Melanie","type":"Person","attributes":[]}],"facts":[]}`

// bodyRecorder keeps the raw body of the last request and lets fake answer it.
type bodyRecorder struct {
	dst  *[]byte
	fake *fakeServer
}

func (b *bodyRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	*b.dst = raw
	r.Body = io.NopCloser(bytes.NewReader(raw))
	b.fake.ServeHTTP(w, r)
}

// sampleExtractInput is an extract input of two episodes (the prompt tests of package wire use
// a fuller one).
func sampleExtractInput() wire.ExtractInput {
	return wire.ExtractInput{
		Episode: wire.EpisodeIn{ReferenceTime: "2023-05-08T13:56:00Z", Source: "message", Speaker: "Melanie",
			Content: "That's great! I'm taking my kids camping next month. 다음 주에 부산으로 이사할 거예요."},
		Previous: []wire.EpisodeIn{{ReferenceTime: "2023-05-08T13:51:00Z", Source: "message", Speaker: "Caroline",
			Content: "I went to a LGBTQ support group yesterday and it was so powerful."}},
	}
}
