package stub

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// roll is a number in [0, 1) fixed by the seed, the logical request, its attempt number and
// a purpose label.
func (s *Server) roll(key [32]byte, attempt int, purpose string) float64 {
	var buf [8 + 32 + 8]byte
	binary.LittleEndian.PutUint64(buf[:8], s.opts.Seed)
	copy(buf[8:40], key[:])
	binary.LittleEndian.PutUint64(buf[40:], uint64(attempt))
	sum := sha256.Sum256(append(buf[:], purpose...))
	return float64(binary.LittleEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// pickFault decides the fault of attempt number attempt of a logical request ("" for none).
func (s *Server) pickFault(key [32]byte, attempt, inRow int) string {
	if s.opts.FaultRate <= 0 || (s.opts.MaxFaults > 0 && inRow >= s.opts.MaxFaults) {
		return ""
	}
	if s.roll(key, attempt, "fault") >= s.opts.FaultRate {
		return ""
	}
	kinds := s.opts.Faults
	i := int(s.roll(key, attempt, "kind") * float64(len(kinds)))
	return kinds[min(i, len(kinds)-1)]
}

// latency is Latency ± Jitter for one attempt.
func (s *Server) latency(key [32]byte, attempt int) time.Duration {
	d := s.opts.Latency
	if j := s.opts.Jitter; j > 0 {
		d += time.Duration((2*s.roll(key, attempt, "jitter") - 1) * float64(j))
	}
	return max(d, 0)
}

// pause waits d; false when the client went away first.
func pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// writeRateLimited answers 429 with both Retry-After (whole seconds) and Retry-After-Ms.
func writeRateLimited(w http.ResponseWriter, after time.Duration) {
	w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(after.Seconds()))))
	w.Header().Set("Retry-After-Ms", strconv.FormatInt(after.Milliseconds(), 10))
	writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "stub: injected rate limit")
}

// writeError answers an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":{"message":%q,"type":%q,"code":%q}}`, msg, code, code)
}

// corrupt makes an answer malformed: for chat, the content of the first choice is cut in half
// (an answer that is not valid JSON, inside a valid envelope with its usage); for embeddings,
// the body itself is cut in half.
func corrupt(body []byte, chat bool) []byte {
	if !chat {
		return body[:len(body)/2]
	}
	var resp map[string]any
	if json.Unmarshal(body, &resp) != nil {
		return body[:len(body)/2]
	}
	choices, _ := resp["choices"].([]any)
	if len(choices) == 0 {
		return body[:len(body)/2]
	}
	choice, _ := choices[0].(map[string]any)
	msg, _ := choice["message"].(map[string]any)
	content, _ := msg["content"].(string)
	if msg == nil {
		return body[:len(body)/2]
	}
	msg["content"] = content[:len(content)/2]
	out, err := json.Marshal(resp)
	if err != nil {
		return body[:len(body)/2]
	}
	return out
}

// usageOf reads the usage block of an answer.
func usageOf(body []byte) wire.TokenUsage {
	var v struct {
		Usage wire.TokenUsage `json:"usage"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Usage
}

// recorder is a minimal buffered http.ResponseWriter for the answering handler.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}
