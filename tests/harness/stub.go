package harness

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/stub"
)

// EmbeddingsTask names embeddings requests in Answer.Task.
const EmbeddingsTask = "embeddings"

// Answer is one good answer a Recorder saw its server give.
type Answer struct {
	Task string   // the chat schema name (the task), or EmbeddingsTask
	Keys []string // cache keys the client stores the answer under: one per chat, one per embedded text
}

// Delay is extra latency by task name (EmbeddingsTask for embeddings).
type Delay func(task string) time.Duration

// Recorder wraps an LLM server: it adds a per-task delay before a request is served and
// remembers every good (200) answer under its cache keys.
type Recorder struct {
	inner http.Handler
	delay Delay
	mu    sync.Mutex
	seen  []Answer
	busy  int // requests being served
}

// NewRecorder wraps inner; delay (nil: none) adds latency by task.
func NewRecorder(inner http.Handler, delay Delay) *Recorder {
	return &Recorder{inner: inner, delay: delay}
}

// ServeHTTP serves one request through the inner handler.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		r.inner.ServeHTTP(w, req)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, "reading body", http.StatusBadRequest)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.busy++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.busy--
		r.mu.Unlock()
	}()
	ans := answerOf(body, strings.HasSuffix(strings.TrimSuffix(req.URL.Path, "/"), "/embeddings"))
	if d := r.delayOf(ans.Task); d > 0 {
		select {
		case <-time.After(d):
		case <-req.Context().Done():
			return
		}
	}
	sw := &statusWriter{ResponseWriter: w}
	r.inner.ServeHTTP(sw, req)
	if sw.code == 0 || sw.code == http.StatusOK {
		r.mu.Lock()
		r.seen = append(r.seen, ans)
		r.mu.Unlock()
	}
}

func (r *Recorder) delayOf(task string) time.Duration {
	if r.delay == nil {
		return 0
	}
	return r.delay(task)
}

// WaitIdle waits until no request is being served (so every answer given is in Answers), or
// until timeout passes; it reports whether the server went idle.
func (r *Recorder) WaitIdle(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		r.mu.Lock()
		busy := r.busy
		r.mu.Unlock()
		if busy == 0 {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// Answers returns the good answers given so far, in order.
func (r *Recorder) Answers() []Answer {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Answer(nil), r.seen...)
}

// answerOf names a request's task and computes the cache keys of its answer.
func answerOf(body []byte, embeddings bool) Answer {
	if embeddings {
		var req llm.EmbeddingsRequest
		if json.Unmarshal(body, &req) != nil {
			return Answer{Task: EmbeddingsTask}
		}
		a := Answer{Task: EmbeddingsTask}
		for _, text := range req.Input {
			a.Keys = append(a.Keys, embed.CacheKey(req.Model, req.Dimensions, text))
		}
		return a
	}
	var req llm.ChatRequest
	if json.Unmarshal(body, &req) != nil || req.ResponseFormat == nil || req.ResponseFormat.JSONSchema == nil {
		return Answer{}
	}
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		if m.Role == llm.RoleUser {
			m.Content = llm.StripFeedback(m.Content)
		}
		msgs[i] = m
	}
	s := req.ResponseFormat.JSONSchema
	return Answer{Task: s.Name, Keys: []string{llm.CacheKey(req.Model, msgs, s.Name, s.Schema, req.Temperature)}}
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Stub is llm/stub served on loopback behind a Recorder.
type Stub struct {
	*Recorder
	Server *stub.Server
	URL    string // base URL for llm.base_url, ending in /v1
	srv    *http.Server
	ln     net.Listener
}

// StartStub serves a new stub with opts on 127.0.0.1 (a free port).
func StartStub(opts stub.Options, delay Delay) (*Stub, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Stub{Server: stub.New(opts), ln: ln, URL: "http://" + ln.Addr().String() + "/v1"}
	s.Recorder = NewRecorder(s.Server, delay)
	s.srv = &http.Server{Handler: s.Recorder, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Stats returns the stub's counters.
func (s *Stub) Stats() stub.Stats { return s.Server.Stats() }

// Close stops serving.
func (s *Stub) Close() error { return s.srv.Close() }
