package stub

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// finish ends a batch in state final: each request is left undone (an error line with code
// undone, unless share of the requests is done, by a hash), answered by an error line
// (BatchFailRate) or answered like the chat or embeddings endpoint would (bad answers
// included), its line written unreadable at BatchInvalidRate. No request meets more than
// MaxFaults of these troubles in a row, so it is answered by its MaxFaults+1st submission at
// the latest. b.mu is held.
func (s *Server) finish(b *batch, final, undone string, share float64) {
	var out, errs bytes.Buffer
	completed, failed := 0, 0
	for i, line := range b.lines {
		key, sub := b.keys[i], b.subs[i]
		id := fmt.Sprintf("batch_req_%s_%d", b.obj.ID, i)
		s.mu.Lock()
		h := s.subs[key]
		capped := s.capped(h.troubleInRow)
		skip := !capped && undone != "" && s.roll(key, sub, "batch-done") >= share
		fail := !capped && !skip && s.opts.BatchFailRate > 0 && s.roll(key, sub, "batch-fail") < s.opts.BatchFailRate
		bad := !capped && !skip && !fail && s.opts.BatchInvalidRate > 0 && s.roll(key, sub, "batch-invalid") < s.opts.BatchInvalidRate
		h.troubleInRow = bump(h.troubleInRow, skip || fail || bad)
		s.mu.Unlock()
		switch {
		case skip:
			writeLine(&errs, wire.BatchOutputLine{ID: id, CustomID: line.CustomID,
				Error: &wire.BatchLineError{Code: undone, Message: "stub: the batch ended before this request ran"}})
			s.countLine(func(st *Stats) { st.BatchUnfinished++ })
			continue
		case fail:
			body := []byte(`{"error":{"message":"stub: injected batch failure","type":"server_error","code":"server_error"}}`)
			writeLine(&errs, wire.BatchOutputLine{ID: id, CustomID: line.CustomID,
				Response: &wire.BatchLineResponse{StatusCode: http.StatusInternalServerError, Body: body}})
			s.countLine(func(st *Stats) { st.BatchErrorLines++ })
			failed++
			continue
		}
		code, body := s.answerLine(line)
		raw, _ := json.Marshal(wire.BatchOutputLine{ID: id, CustomID: line.CustomID,
			Response: &wire.BatchLineResponse{StatusCode: code, Body: body}})
		if bad {
			raw = raw[:len(raw)/2]
			s.countLine(func(st *Stats) { st.BatchInvalidLines++ })
		}
		out.Write(append(raw, '\n'))
		completed++
	}
	s.bmu.Lock()
	if out.Len() > 0 {
		b.obj.OutputFileID = s.addFile(b.obj.ID+"_output.jsonl", "batch_output", out.Bytes()).ID
	}
	if errs.Len() > 0 {
		b.obj.ErrorFileID = s.addFile(b.obj.ID+"_error.jsonl", "batch_output", errs.Bytes()).ID
	}
	if b.fate == fateFilesLost {
		s.dropFiles(b.obj.OutputFileID, b.obj.ErrorFileID)
		s.countLine(func(st *Stats) { st.BatchFilesLost++ })
	}
	s.bmu.Unlock()
	b.obj.Status = final
	b.obj.RequestCounts.Completed, b.obj.RequestCounts.Failed = completed, failed
	s.countLine(func(st *Stats) {
		switch final {
		case wire.BatchExpired:
			st.BatchesExpired++
		case wire.BatchCancelled:
			st.BatchesCancelled++
		}
	})
}

// answerLine answers one request line as the chat or embeddings endpoint would answer it.
func (s *Server) answerLine(line wire.BatchInputLine) (int, json.RawMessage) {
	chat := strings.HasSuffix(line.URL, "/chat/completions")
	key, task := logicalKey(line.Body, chat)
	bad := ""
	if chat {
		bad = s.pickBad(key, task)
	}
	req, err := http.NewRequest(http.MethodPost, line.URL, bytes.NewReader(line.Body))
	if err != nil {
		return http.StatusBadRequest, json.RawMessage(`{"error":{"message":"stub: bad request line","type":"invalid_request"}}`)
	}
	rec := s.produce(req, line.Body, key, chat, false, bad)
	code := rec.code
	if code == 0 {
		code = http.StatusOK
	}
	body := bytes.TrimSpace(rec.body.Bytes())
	if !json.Valid(body) {
		body, _ = json.Marshal(map[string]any{"error": map[string]string{"message": string(body), "type": "invalid_request"}})
	}
	return code, body
}

// capped reports whether a request has had MaxFaults troubles in a row already.
func (s *Server) capped(inRow int) bool { return s.opts.MaxFaults > 0 && inRow >= s.opts.MaxFaults }

// bump counts one more trouble in a row, or resets the count.
func bump(inRow int, trouble bool) int {
	if trouble {
		return inRow + 1
	}
	return 0
}

// countLine applies f to the counters under the lock.
func (s *Server) countLine(f func(*Stats)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.st.Stats)
}

// writeLine appends one JSON line.
func writeLine(buf *bytes.Buffer, v any) {
	raw, _ := json.Marshal(v)
	buf.Write(append(raw, '\n'))
}

// batchKey is the request key of a line: a sha256 of its url, custom_id and body, so the
// same request sent again (the same custom_id and body) is counted as a resubmission.
func batchKey(line wire.BatchInputLine) [32]byte {
	h := sha256.New()
	for _, part := range []string{line.URL, line.CustomID, string(line.Body)} {
		h.Write([]byte(strconv.Itoa(len(part)) + ":" + part + ";"))
	}
	var k [32]byte
	copy(k[:], h.Sum(nil))
	return k
}
