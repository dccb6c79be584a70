package stub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/wire"
)

func start(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s := New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

// post sends body to path and returns the status (0 for a dropped connection) and answer.
func post(t *testing.T, srv *httptest.Server, path string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	resp, err := srv.Client().Post(srv.URL+path, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

func embedBody(i int) []byte {
	b, _ := json.Marshal(wire.EmbeddingsRequest{Model: "hashing-v1", Input: []string{fmt.Sprint("text ", i)}, Dimensions: 8})
	return b
}

func chatBody(t *testing.T, summary string) []byte {
	t.Helper()
	p, err := wire.LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := p.Render(wire.TaskNameCommunity, wire.NameInput{Summary: summary})
	if err != nil {
		t.Fatal(err)
	}
	task, _ := wire.LookupTask(wire.TaskNameCommunity)
	b, _ := json.Marshal(wire.ChatRequest{Model: "m", Messages: msgs, ResponseFormat: &wire.ResponseFormat{Type: "json_schema",
		JSONSchema: &wire.JSONSchema{Name: task.Name, Strict: true, Schema: task.Raw}}})
	return b
}

// TestFaultsDeterministic: the status sequence each logical request sees depends on the seed
// only, not on the order requests arrive in.
func TestFaultsDeterministic(t *testing.T) {
	opts := Options{FaultRate: 0.5, Seed: 7, Faults: []string{Fault429, Fault500, FaultMalformed}, RetryAfter: time.Millisecond}
	run := func(order []int) map[int][]int {
		_, srv := start(t, opts)
		out := map[int][]int{}
		for _, i := range order {
			for range 4 {
				code, _, body := post(t, srv, "/v1/embeddings", embedBody(i))
				if code == 200 && !json.Valid(body) {
					code = -1 // malformed
				}
				out[i] = append(out[i], code)
			}
		}
		return out
	}
	a := run([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	b := run([]int{9, 3, 5, 7, 1, 0, 2, 8, 6, 4})
	kinds := map[int]bool{}
	for i, seq := range a {
		if !slices.Equal(seq, b[i]) {
			t.Fatalf("request %d: %v in one order, %v in another", i, seq, b[i])
		}
		for _, c := range seq {
			kinds[c] = true
		}
	}
	if !kinds[200] || !kinds[429] || !kinds[500] || !kinds[-1] {
		t.Fatalf("outcomes seen %v, want success, 429, 500 and malformed", kinds)
	}
	opts.Seed = 8
	if c := run([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}); fmt.Sprint(c) == fmt.Sprint(a) {
		t.Fatal("another seed gave the same faults")
	}
}

func TestFaultRateAndCap(t *testing.T) {
	s, srv := start(t, Options{FaultRate: 0.2, Seed: 1, Faults: []string{Fault500}})
	for i := range 500 {
		post(t, srv, "/v1/embeddings", embedBody(i))
	}
	if f := s.Stats().Faults; f < 70 || f > 130 {
		t.Fatalf("%d faults in 500 requests at rate 0.2", f)
	}
	// At rate 1 every logical request faults MaxFaults times, then succeeds.
	s, srv = start(t, Options{FaultRate: 1, MaxFaults: 2, Faults: []string{Fault500}})
	var codes []int
	for range 4 {
		code, _, _ := post(t, srv, "/v1/embeddings", embedBody(1))
		codes = append(codes, code)
	}
	if !slices.Equal(codes, []int{500, 500, 200, 500}) {
		t.Fatalf("codes %v, want two faults, a success, then faults again", codes)
	}
	if st := s.Stats(); st.Answered != 1 || st.Repeated != 0 || st.FaultsByKind[Fault500] != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestFaultKinds(t *testing.T) {
	for _, tt := range []struct {
		kind  string
		check func(code int, h http.Header, body []byte) string
	}{
		{Fault429, func(code int, h http.Header, _ []byte) string {
			if code != 429 || h.Get("Retry-After") != "1" || h.Get("Retry-After-Ms") != "250" {
				return fmt.Sprintf("code %d, Retry-After %q, Retry-After-Ms %q", code, h.Get("Retry-After"), h.Get("Retry-After-Ms"))
			}
			return ""
		}},
		{Fault500, func(code int, _ http.Header, body []byte) string {
			if code != 500 || !strings.Contains(string(body), "server_error") {
				return fmt.Sprintf("code %d body %s", code, body)
			}
			return ""
		}},
		{FaultDrop, func(code int, _ http.Header, _ []byte) string {
			if code != 0 {
				return fmt.Sprintf("got an answer (%d) from a dropped connection", code)
			}
			return ""
		}},
		{FaultTimeout, func(code int, _ http.Header, _ []byte) string {
			if code != http.StatusGatewayTimeout {
				return fmt.Sprintf("code %d", code)
			}
			return ""
		}},
		{FaultMalformed, func(code int, _ http.Header, body []byte) string {
			var resp wire.ChatResponse
			if code != 200 || json.Unmarshal(body, &resp) != nil || len(resp.Choices) != 1 || resp.Usage == nil {
				return fmt.Sprintf("not a chat envelope: %d %s", code, body)
			}
			if json.Valid([]byte(resp.Choices[0].Message.Content)) {
				return "content is valid JSON"
			}
			return ""
		}},
	} {
		t.Run(tt.kind, func(t *testing.T) {
			s, srv := start(t, Options{FaultRate: 1, Faults: []string{tt.kind}, RetryAfter: 250 * time.Millisecond, Stall: 10 * time.Millisecond})
			code, h, body := post(t, srv, "/v1/chat/completions", chatBody(t, "a club of friends"))
			if msg := tt.check(code, h, body); msg != "" {
				t.Fatal(msg)
			}
			if st := s.Stats(); st.Faults != 1 || st.FaultsByKind[tt.kind] != 1 || st.ChatCalls != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestClientThroughFaults: a client with default attempts gets every answer through a 50%
// fault rate, the answers equal the fault-free ones, and nothing is answered twice.
func TestClientThroughFaults(t *testing.T) {
	answers := func(rate float64) ([]string, Stats, pacing.Usage) {
		s, srv := start(t, Options{FaultRate: rate, Seed: 3, RetryAfter: time.Millisecond, Stall: 20 * time.Millisecond})
		c := llm.NewClient(llm.Options{BaseURL: srv.URL + "/v1", Model: "m", Concurrency: 4, Timeout: 500 * time.Millisecond,
			BackoffBase: time.Millisecond, BackoffMax: 2 * time.Millisecond}, srv.Client(), nil, nil)
		out := make([]string, 20)
		var wg sync.WaitGroup
		for i := range out {
			wg.Go(func() {
				var name wire.NameOutput
				if err := c.Call(context.Background(), "community", wire.TaskNameCommunity, wire.NameInput{Summary: fmt.Sprint("Alice and Bob play chess ", i)}, &name); err != nil {
					t.Error(err)
				}
				out[i] = name.Name
			})
		}
		wg.Wait()
		return out, s.Stats(), c.Usage()
	}
	clean, cleanStats, _ := answers(0)
	faulty, st, u := answers(0.5)
	if !slices.Equal(clean, faulty) {
		t.Fatalf("answers differ:\n%q\n%q", clean, faulty)
	}
	if cleanStats.Faults != 0 || st.Faults == 0 || u.Total.Retries == 0 || st.Repeated != 0 || st.Answered != 20 {
		t.Fatalf("stats %+v, usage %+v", st, u.Total)
	}
	if st.MaxInFlight > 4 {
		t.Fatalf("stub saw %d in flight, client bound 4", st.MaxInFlight)
	}
}

func TestStatsEndpoint(t *testing.T) {
	s, srv := start(t, Options{Window: time.Hour})
	for i := range 3 {
		post(t, srv, "/v1/embeddings", embedBody(i))
	}
	post(t, srv, "/v1/embeddings", embedBody(0)) // a repeat
	resp, err := srv.Client().Get(srv.URL + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"calls", "prompt_tokens", "completion_tokens", "faults", "max_in_flight"} {
		if _, ok := got[k]; !ok {
			t.Errorf("/stats has no %q: %v", k, got)
		}
	}
	st := s.Stats()
	if st.Calls != 4 || st.EmbeddingCalls != 4 || st.Repeated != 1 || st.PromptTokens == 0 ||
		st.MaxCallsInWindow != 4 || !slices.Equal(st.CallsPerMinute, []int64{4}) || st.MaxInFlight != 1 {
		t.Fatalf("stats %+v", st)
	}
	if code, _, _ := post(t, srv, "/v1/nothing", nil); code != http.StatusNotFound {
		t.Fatalf("unknown path: %d", code)
	}
}

func TestLatency(t *testing.T) {
	_, srv := start(t, Options{Latency: 60 * time.Millisecond, Jitter: 20 * time.Millisecond})
	for i := range 3 {
		begin := time.Now()
		if code, _, _ := post(t, srv, "/v1/embeddings", embedBody(i)); code != 200 {
			t.Fatalf("code %d", code)
		}
		if d := time.Since(begin); d < 40*time.Millisecond {
			t.Fatalf("answered after %v, want at least 40ms", d)
		}
	}
}
