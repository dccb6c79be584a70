package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
)

// EmbeddingsTask names embeddings requests in Answer.Task.
const EmbeddingsTask = "embeddings"

// Answer is one good answer a Recorder saw its server give.
type Answer struct {
	Task  string          // the chat schema name (the task), or EmbeddingsTask
	Keys  []string        // cache keys the client stores the answer under: one per chat, one per embedded text
	Usage wire.TokenUsage // the answer's usage block as the server reported it
}

// Delay is extra latency by task name (EmbeddingsTask for embeddings).
type Delay func(task string) time.Duration

// Recorder wraps an LLM server: it adds a per-task delay before a request is served and
// remembers every good (200) answer under its cache keys.
type Recorder struct {
	inner   http.Handler
	delay   Delay
	mu      sync.Mutex
	seen    []Answer
	busy    int // requests being served
	aborted int // requests that ended without a 200 (the client went away, or an error)
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
			r.mu.Lock()
			r.aborted++
			r.mu.Unlock()
			return
		}
	}
	sw := &statusWriter{ResponseWriter: w}
	r.inner.ServeHTTP(sw, req)
	r.mu.Lock()
	defer r.mu.Unlock()
	if (sw.code == 0 || sw.code == http.StatusOK) && req.Context().Err() == nil {
		var u struct {
			Usage wire.TokenUsage `json:"usage"`
		}
		if json.Unmarshal(sw.body.Bytes(), &u) == nil {
			ans.Usage = u.Usage
		}
		r.seen = append(r.seen, ans)
	} else {
		r.aborted++
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

// Aborted counts the requests that ended without a good answer reaching a live client.
func (r *Recorder) Aborted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.aborted
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
		var req wire.EmbeddingsRequest
		if json.Unmarshal(body, &req) != nil {
			return Answer{Task: EmbeddingsTask}
		}
		a := Answer{Task: EmbeddingsTask}
		for _, text := range req.Input {
			a.Keys = append(a.Keys, embed.CacheKey(req.Model, req.Dimensions, text))
		}
		return a
	}
	var req wire.ChatRequest
	if json.Unmarshal(body, &req) != nil {
		return Answer{}
	}
	key := llm.RequestKey(req)
	if key == "" {
		return Answer{}
	}
	return Answer{Task: wire.RequestTask(req), Keys: []string{key}}
}

// statusWriter remembers the status code written and a copy of the body (up to 1 MiB).
type statusWriter struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer (the reverse proxy flushes).
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	if s.body.Len()+len(b) <= 1<<20 {
		s.body.Write(b)
	}
	return s.ResponseWriter.Write(b)
}

// Stub is an LLM server on loopback behind a Recorder: providers/stub in-process (StartStub) or a
// proxy to another server such as a `backfill llm-stub` subprocess (StartProxy).
type Stub struct {
	*Recorder
	URL   string // base URL for llm.base_url, ending in /v1
	stats func() (stub.Stats, error)
	srv   *http.Server
}

// serve serves h on a free port of 127.0.0.1.
func serve(s *Stub, h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on loopback: %w", err)
	}
	s.URL = "http://" + ln.Addr().String() + "/v1"
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return nil
}

// StartStub serves a new in-process providers/stub with opts.
func StartStub(opts stub.Options, delay Delay) (*Stub, error) {
	srv := stub.New(opts)
	s := &Stub{Recorder: NewRecorder(srv, delay), stats: func() (stub.Stats, error) { return srv.Stats(), nil }}
	return s, serve(s, s.Recorder)
}

// StartProxy serves a Recorder in front of the LLM server at upstream (a base URL ending in
// /v1, e.g. a `backfill llm-stub`); Stats reads the upstream's GET /stats.
func StartProxy(upstream string, delay Delay) (*Stub, error) {
	u, err := url.Parse(strings.TrimSuffix(upstream, "/v1"))
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", upstream, err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ErrorLog = log.New(io.Discard, "", 0) // a killed client's cancelled requests are expected
	s := &Stub{Recorder: NewRecorder(proxy, delay)}
	s.stats = func() (stub.Stats, error) { return StubStats(upstream) }
	return s, serve(s, s.Recorder)
}

// StubStats reads GET /stats of the stub whose base URL (ending in /v1) is base.
func StubStats(base string) (stub.Stats, error) {
	var st stub.Stats
	resp, err := http.Get(strings.TrimSuffix(base, "/v1") + "/stats")
	if err != nil {
		return st, fmt.Errorf("reading stub stats: %w", err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return st, fmt.Errorf("reading stub stats: %w", err)
	}
	return st, nil
}

// Stats returns the stub's counters.
func (s *Stub) Stats() (stub.Stats, error) { return s.stats() }

// Close stops serving.
func (s *Stub) Close() error { return s.srv.Close() }

// StartLLMStub runs `backfill llm-stub` on a free loopback port with the extra flags and
// returns the process and its base URL.
func StartLLMStub(ctx context.Context, bin string, flags ...string) (*Proc, string, error) {
	p, err := Start(ctx, bin, append([]string{"llm-stub", "--addr", "127.0.0.1:0"}, flags...), Options{})
	if err != nil {
		return nil, "", err
	}
	line, ok := p.WaitLine(ctx, "llm-stub listening")
	_, rest, found := strings.Cut(line, "base_url=")
	if !ok || !found {
		_ = p.Signal(os.Interrupt)
		res, _ := p.Wait()
		return nil, "", fmt.Errorf("starting llm-stub: no listening line (exit %d)\n%s", res.Code, res.Stderr)
	}
	base, _, _ := strings.Cut(rest, " ")
	return p, strings.Trim(base, `"`), nil
}

// LLMStub runs `backfill llm-stub` with the extra flags until t ends (StartLLMStub, interrupted
// and waited for in t's cleanup), failing t when it does not start, and returns its base URL.
func LLMStub(t testing.TB, bin string, flags ...string) string {
	t.Helper()
	p, base, err := StartLLMStub(t.Context(), bin, flags...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Signal(os.Interrupt)
		_, _ = p.Wait()
	})
	return base
}
