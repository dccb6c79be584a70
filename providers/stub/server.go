package stub

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/offline"
)

// Fault kinds.
const (
	Fault429       = "429"
	Fault500       = "500"
	FaultDrop      = "drop"
	FaultTimeout   = "timeout"
	FaultMalformed = "malformed"
)

// AllFaults lists every fault kind, in the order the hash picks from.
func AllFaults() []string {
	return []string{Fault429, Fault500, FaultDrop, FaultTimeout, FaultMalformed}
}

// Options configure a Server. Zero values take the defaults.
type Options struct {
	Latency    time.Duration // added to every answer
	Jitter     time.Duration // latency varies uniformly in [Latency-Jitter, Latency+Jitter]
	FaultRate  float64       // share of requests that fault, 0..1
	Seed       uint64        // fault and jitter pattern
	Faults     []string      // kinds injected (AllFaults when empty)
	MaxFaults  int           // most faults in a row per logical request (2; negative: no cap)
	RetryAfter time.Duration // sent with a 429 (1s)
	Stall      time.Duration // a timeout fault holds the request this long, then answers 504 (30s)
	Window     time.Duration // sliding window of Stats.MaxCallsInWindow (1m)
	Dims       int           // embedding size when a request names none (the offline default)
	Answer     http.Handler  // what answers the requests (offline.NewHandler)
	// BadRate is the share of logical chat requests answered badly on every attempt (see
	// AllBadKinds), fixed by Seed and the request; BadKinds are the kinds used (all when
	// empty) and BadTasks the tasks affected (all when empty).
	BadRate  float64
	BadKinds []string
	BadTasks []string
	// PrefixCache imitates a provider's prompt cache: the usage of a chat answer reports the
	// cached part of its prompt (usage.prompt_tokens_details.cached_tokens). Off when its
	// Block is 0.
	PrefixCache PrefixCache
	// Batches (POST …/files, …/batches): a batch ends BatchDelay after its creation (at the
	// first poll after it). BatchFailRate of its requests come back as error lines (HTTP 500),
	// BatchExpireRate of the batches expire with about half of their requests undone, and
	// BatchInvalidRate of the output lines are cut in half; each capped at MaxFaults in a row
	// per request, like faults. Files over BatchMaxBytes (200 MB) or BatchMaxRequests (50,000)
	// lines give a batch that fails its validation.
	BatchDelay       time.Duration
	BatchFailRate    float64
	BatchExpireRate  float64
	BatchInvalidRate float64
	BatchMaxRequests int
	BatchMaxBytes    int64
	// External state that vanishes (batchfate.go): BatchLoseRate of the batches are forgotten
	// after BatchLoseAfter polls (GET, cancel and the list no longer know them, their files
	// are gone), BatchFailedRate end failed with a reason in their errors and their requests
	// undone, and BatchLoseFilesRate end with output and error files the stub forgets at once.
	// No request is in more than one lost batch or batch with lost files.
	BatchLoseRate      float64
	BatchLoseAfter     int
	BatchFailedRate    float64
	BatchLoseFilesRate float64
}

func (o *Options) defaults() {
	if len(o.Faults) == 0 {
		o.Faults = AllFaults()
	}
	if o.MaxFaults == 0 {
		o.MaxFaults = 2
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	if o.Stall <= 0 {
		o.Stall = 30 * time.Second
	}
	if o.Window <= 0 {
		o.Window = time.Minute
	}
	if o.Answer == nil {
		o.Answer = offline.NewHandler(offline.Options{Dims: o.Dims})
	}
	if len(o.BadKinds) == 0 {
		o.BadKinds = AllBadKinds()
	}
	if o.BatchMaxRequests <= 0 {
		o.BatchMaxRequests = wire.BatchMaxRequests
	}
	if o.BatchMaxBytes <= 0 {
		o.BatchMaxBytes = wire.BatchMaxBytes
	}
}

// Server is the stub: an http.Handler, safe for concurrent use.
type Server struct {
	opts Options
	mu   sync.Mutex
	seen map[[32]byte]*history
	subs map[[32]byte]*submissions // batch submissions by request key (guarded by mu)
	st   counters
	// prefix is the imitated prompt cache (Options.PrefixCache), guarded by mu.
	prefix prefixes

	bmu     sync.Mutex // guards files, batches, order and the counters of ids
	files   map[string]*file
	batches map[string]*batch
	order   []string // batch ids, oldest first
	nfile   int
	nbatch  int
}

// history is what the stub remembers of one logical request.
type history struct {
	attempts    int // requests seen
	faultsInRow int
	answered    int // successful answers given
}

// New returns a stub server.
func New(opts Options) *Server {
	opts.defaults()
	return &Server{opts: opts, seen: map[[32]byte]*history{}, subs: map[[32]byte]*submissions{},
		st: newCounters(time.Now(), opts.Window), prefix: prefixes{rule: opts.PrefixCache},
		files: map[string]*file{}, batches: map[string]*batch{}}
}

// ServeHTTP serves GET /stats, the two API endpoints (matched by path suffix), the files and
// the batches.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/stats" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(s.Stats())
	case strings.HasSuffix(path, "/chat/completions"), strings.HasSuffix(path, "/embeddings"):
		s.serveAPI(w, r, strings.HasSuffix(path, "/chat/completions"))
	default:
		if rest, ok := route(path, "files"); ok {
			s.serveFiles(w, r, rest)
		} else if rest, ok := route(path, "batches"); ok {
			s.serveBatches(w, r, rest)
		} else {
			http.NotFound(w, r)
		}
	}
}

// route matches a path with a /name segment and returns what follows it ("" or an id, with
// any further segments).
func route(path, name string) (string, bool) {
	i := strings.Index(path, "/"+name)
	if i < 0 {
		return "", false
	}
	rest := path[i+1+len(name):]
	if rest != "" && rest[0] != '/' {
		return "", false
	}
	return strings.TrimPrefix(rest, "/"), true
}

// serveAPI answers one API request, or injects a fault.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, chat bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "reading body", http.StatusBadRequest)
		return
	}
	key, task := logicalKey(body, chat)
	s.mu.Lock()
	h := s.seen[key]
	if h == nil {
		h = &history{}
		s.seen[key] = h
	}
	n := h.attempts
	h.attempts++
	fault := s.pickFault(key, n, h.faultsInRow)
	if fault != "" {
		h.faultsInRow++
	} else {
		h.faultsInRow = 0
	}
	s.st.start(time.Now(), chat, fault)
	s.mu.Unlock()
	defer s.done()

	if !pause(r, s.latency(key, n)) {
		return // the client went away
	}
	switch fault {
	case Fault429:
		writeRateLimited(w, s.opts.RetryAfter)
	case Fault500:
		writeError(w, http.StatusInternalServerError, "server_error", "stub: injected server error")
	case FaultDrop:
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	case FaultTimeout:
		if pause(r, s.opts.Stall) {
			writeError(w, http.StatusGatewayTimeout, "timeout", "stub: injected timeout")
		}
	default:
		bad := ""
		if chat {
			bad = s.pickBad(key, task)
		}
		s.answer(w, r, body, key, chat, fault == FaultMalformed, bad)
	}
}

// answer serves the request with the answering handler, cut in half when malformed, made bad
// when bad names a kind.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, body []byte, key [32]byte, chat, malformed bool, bad string) {
	req := r.Clone(r.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	rec := s.produce(req, body, key, chat, malformed, bad)
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	if rec.code != 0 {
		w.WriteHeader(rec.code)
	}
	_, _ = w.Write(rec.body.Bytes())
}

// produce answers req (whose body, body, is the logical request key) with the answering handler,
// cut in half when malformed, made bad when bad names a kind, and counts the answer; a chat
// answer reports the prompt tokens cached under Options.PrefixCache.
func (s *Server) produce(req *http.Request, body []byte, key [32]byte, chat, malformed bool, bad string) *recorder {
	rec := &recorder{header: http.Header{}}
	s.opts.Answer.ServeHTTP(rec, req)
	out := rec.body.Bytes()
	ok := rec.code == 0 || rec.code == http.StatusOK
	var u wire.TokenUsage
	if ok && chat && s.opts.PrefixCache.Block > 0 {
		prompt := usageOf(out).PromptTokens
		s.mu.Lock()
		cached, shared := s.prefix.lookup(body)
		cached, shared = min(cached, prompt), min(shared, prompt)
		s.st.CachedPromptTokens += int64(cached)
		s.st.PrefixSharedTokens += int64(shared)
		s.mu.Unlock()
		out = withCached(out, cached)
	}
	if ok {
		u = usageOf(out)
		if malformed {
			out = corrupt(out, chat)
		} else if bad != "" {
			out = spoil(out, bad)
		}
		rec.body.Reset()
		rec.body.Write(out)
	}
	good := ok && !malformed && bad == ""
	s.mu.Lock()
	h := s.seen[key]
	if h == nil {
		h = &history{}
		s.seen[key] = h
	}
	s.st.answered(u, good, good && h.answered > 0)
	if ok && bad != "" {
		s.st.BadAnswers++
	}
	if good {
		h.answered++
	}
	s.mu.Unlock()
	return rec
}

// done counts a request as finished.
func (s *Server) done() {
	s.mu.Lock()
	s.st.InFlight--
	s.mu.Unlock()
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st.snapshot()
	for _, h := range s.subs {
		if h.lost {
			st.BatchLostMinSubmissions = min(cmp.Or(st.BatchLostMinSubmissions, h.count), h.count)
			st.BatchLostMaxSubmissions = max(st.BatchLostMaxSubmissions, h.count)
		}
	}
	return st
}

// logicalKey identifies a request across retries: for chat, the model, the task (wire.RequestTask)
// and the messages with validation feedback removed (max_tokens left out, so the retry of an
// answer cut at the length limit is the same request); for embeddings, the body.
// The task is the chat request's task ("" for embeddings).
func logicalKey(body []byte, chat bool) ([32]byte, string) {
	var req wire.ChatRequest
	if !chat || json.Unmarshal(body, &req) != nil {
		return sha256.Sum256(body), ""
	}
	h := sha256.New()
	task := wire.RequestTask(req)
	for _, part := range []string{req.Model, task} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	for _, m := range req.Messages {
		h.Write([]byte(m.Role + "\x00" + wire.StripFeedback(m.Content) + "\x00"))
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k, task
}
