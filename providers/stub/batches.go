package stub

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// batch is one batch the stub holds.
type batch struct {
	mu      sync.Mutex
	obj     wire.Batch
	lines   []wire.BatchInputLine
	keys    [][32]byte // each line's request key (batchKey)
	subs    []int      // each line's submission number of its request (0 for the first)
	created time.Time
	expire  bool // ends expired, with part of its requests undone
	fate    fate // lost, failed or its files lost (batchfate.go)
	polls   int  // GETs of a batch the stub will lose
}

// submissions is what the stub remembers of one request across batches.
type submissions struct {
	count        int  // batches it was submitted in
	troubleInRow int  // submissions in a row left undone, failed or answered by an unreadable line
	lost         bool // it was in a batch the stub lost (or whose files it lost)
}

// serveBatches answers POST …/batches, GET …/batches, GET …/batches/{id} and
// POST …/batches/{id}/cancel.
func (s *Server) serveBatches(w http.ResponseWriter, r *http.Request, rest string) {
	id, cancel := strings.CutSuffix(rest, "/cancel")
	switch {
	case rest == "" && r.Method == http.MethodPost:
		s.createBatch(w, r)
	case rest == "" && r.Method == http.MethodGet:
		s.listBatches(w, r)
	case rest != "" && !cancel && r.Method == http.MethodGet, cancel && r.Method == http.MethodPost:
		s.bmu.Lock()
		b := s.batches[id]
		s.bmu.Unlock()
		if b == nil {
			writeError(w, http.StatusNotFound, "not_found", "no such batch: "+id)
			return
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		switch {
		case cancel:
			s.cancel(b)
		case s.forgets(b):
			writeError(w, http.StatusNotFound, "not_found", "no such batch: "+id)
			return
		default:
			s.advance(b)
		}
		writeJSON(w, b.obj)
	default:
		writeError(w, http.StatusMethodNotAllowed, "invalid_request", "unsupported batches request")
	}
}

// createBatch creates a batch over an uploaded file and counts the submissions of its requests.
// A file that breaks the format or the limits gives a batch that failed its validation.
func (s *Server) createBatch(w http.ResponseWriter, r *http.Request) {
	var req wire.BatchCreate
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "reading the batch: "+err.Error())
		return
	}
	if req.Endpoint != wire.EndpointChat && req.Endpoint != wire.EndpointEmbeddings {
		writeError(w, http.StatusBadRequest, "invalid_request", "unsupported endpoint "+req.Endpoint)
		return
	}
	if req.CompletionWindow != wire.CompletionWindow {
		writeError(w, http.StatusBadRequest, "invalid_request", "completion_window must be "+wire.CompletionWindow)
		return
	}
	s.bmu.Lock()
	defer s.bmu.Unlock()
	f := s.files[req.InputFileID]
	if f == nil {
		writeError(w, http.StatusBadRequest, "invalid_request", "no such file: "+req.InputFileID)
		return
	}
	s.nbatch++
	b := &batch{created: time.Now(), obj: wire.Batch{ID: fmt.Sprintf("batch_stub%06d", s.nbatch), Object: "batch",
		Endpoint: req.Endpoint, InputFileID: req.InputFileID, CompletionWindow: req.CompletionWindow, Status: wire.BatchValidating,
		CreatedAt: time.Now().Unix(), Metadata: req.Metadata}}
	if problem := s.parseLines(b, f.data, req.Endpoint); problem != "" {
		b.obj.Status = wire.BatchFailed
		b.obj.Errors = &wire.BatchErrors{Data: []wire.BatchLineError{{Code: "invalid_file", Message: problem}}}
		b.lines, b.keys = nil, nil
	} else {
		s.count(b)
		b.expire = s.opts.BatchExpireRate > 0 && s.roll(requestSetKey(b), 0, "batch-expire") < s.opts.BatchExpireRate
		b.fate = s.pickFate(b)
	}
	b.obj.RequestCounts.Total = len(b.lines)
	s.batches[b.obj.ID] = b
	s.order = append(s.order, b.obj.ID)
	s.mu.Lock()
	s.st.Batches++
	s.mu.Unlock()
	writeJSON(w, b.obj)
}

// parseLines reads a batch's input file, or says what is wrong with it.
func (s *Server) parseLines(b *batch, data []byte, endpoint string) string {
	if int64(len(data)) > s.opts.BatchMaxBytes {
		return fmt.Sprintf("the file has %d bytes, more than %d", len(data), s.opts.BatchMaxBytes)
	}
	ids := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var line wire.BatchInputLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Sprintf("line %d: %v", n, err)
		}
		switch {
		case line.CustomID == "" || ids[line.CustomID]:
			return fmt.Sprintf("line %d: custom_id missing or repeated", n)
		case line.Method != http.MethodPost || line.URL != endpoint:
			return fmt.Sprintf("line %d: want POST %s", n, endpoint)
		}
		ids[line.CustomID] = true
		b.lines = append(b.lines, line)
		b.keys = append(b.keys, batchKey(line))
	}
	if len(b.lines) == 0 {
		return "the file holds no request"
	}
	if len(b.lines) > s.opts.BatchMaxRequests {
		return fmt.Sprintf("the file holds %d requests, more than %d", len(b.lines), s.opts.BatchMaxRequests)
	}
	return ""
}

// count records the submission of each request of b; s.bmu is held.
func (s *Server) count(b *batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range b.keys {
		h := s.subs[k]
		if h == nil {
			h = &submissions{}
			s.subs[k] = h
			s.st.BatchDistinct++
		} else {
			s.st.BatchResubmitted++
		}
		b.subs = append(b.subs, h.count)
		h.count++
		s.st.BatchRequests++
		s.st.BatchMaxSubmissions = max(s.st.BatchMaxSubmissions, h.count)
	}
}

// advance moves a batch on with time: in progress until BatchDelay has passed since its
// creation, then completed (or expired); b.mu is held.
func (s *Server) advance(b *batch) {
	if wire.BatchEnded(b.obj.Status) {
		return
	}
	if time.Since(b.created) < s.opts.BatchDelay || b.fate == fateLost {
		b.obj.Status = wire.BatchInProgress
		return
	}
	if b.fate == fateFailed {
		s.fail(b)
		return
	}
	if b.expire {
		s.finish(b, wire.BatchExpired, wire.LineExpired, 0.5)
		return
	}
	s.finish(b, wire.BatchCompleted, "", 1)
}

// cancel ends a batch as cancelled with the share of its requests done by now; b.mu is held.
func (s *Server) cancel(b *batch) {
	if wire.BatchEnded(b.obj.Status) {
		return
	}
	done := 1.0
	if d := s.opts.BatchDelay; d > 0 {
		done = min(1, float64(time.Since(b.created))/float64(d))
	}
	s.finish(b, wire.BatchCancelled, wire.LineCancelled, done)
}

// listBatches answers a page of batches, newest first (limit, after).
func (s *Server) listBatches(w http.ResponseWriter, r *http.Request) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit < 1 || limit > 100 {
		limit = 20
	}
	after := r.URL.Query().Get("after")
	s.bmu.Lock()
	ids := slices.Clone(s.order)
	s.bmu.Unlock()
	slices.Reverse(ids)
	if after != "" {
		i := slices.Index(ids, after)
		ids = ids[i+1:] // an unknown id starts from the newest
	}
	var page wire.BatchList
	for _, id := range ids[:min(limit, len(ids))] {
		s.bmu.Lock()
		b := s.batches[id]
		s.bmu.Unlock()
		if b == nil { // forgotten since the ids were read
			continue
		}
		b.mu.Lock()
		page.Data = append(page.Data, b.obj)
		b.mu.Unlock()
	}
	page.HasMore = len(ids) > limit
	if len(page.Data) > 0 {
		page.LastID = page.Data[len(page.Data)-1].ID
	}
	writeJSON(w, page)
}

// requestSetKey is a sha256 of a batch's requests with their submission numbers, whatever
// their order in the file: whether a batch expires depends on the seed and what it carries,
// not on the order a client wrote its lines in nor on the batches before it, so the same run
// meets the same expiries.
func requestSetKey(b *batch) [32]byte {
	parts := make([]string, len(b.keys))
	for i, k := range b.keys {
		parts[i] = fmt.Sprintf("%x:%d;", k, b.subs[i])
	}
	slices.Sort(parts)
	return sha256.Sum256([]byte(strings.Join(parts, "")))
}
