package stub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	llmbatch "github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
)

// batchAPI returns the batch API client of srv.
func batchAPI(srv *httptest.Server) *llmbatch.API {
	return llmbatch.NewAPI(&transport.Poster{BaseURL: srv.URL + "/v1", HTTP: srv.Client(), MaxAttempts: 1})
}

// submit uploads a file of one request line per body and creates a batch over it.
func submit(t *testing.T, api *llmbatch.API, endpoint string, bodies [][]byte, meta map[string]string) wire.Batch {
	t.Helper()
	var buf bytes.Buffer
	for _, b := range bodies {
		line, _ := json.Marshal(wire.BatchInputLine{CustomID: llmbatch.Key(endpoint, b, 0), Method: "POST", URL: endpoint, Body: b})
		buf.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, err := api.Upload(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := api.Create(ctx, wire.BatchCreate{InputFileID: f.ID, Endpoint: endpoint, CompletionWindow: wire.CompletionWindow, Metadata: meta})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// results reads a batch's output and error lines by custom_id.
func results(t *testing.T, api *llmbatch.API, b wire.Batch) (out, errs map[string]wire.BatchOutputLine, unreadable int) {
	t.Helper()
	out, errs = map[string]wire.BatchOutputLine{}, map[string]wire.BatchOutputLine{}
	for _, f := range []struct {
		id string
		to map[string]wire.BatchOutputLine
	}{{b.OutputFileID, out}, {b.ErrorFileID, errs}} {
		if f.id == "" {
			continue
		}
		if err := api.Lines(context.Background(), f.id, func(line []byte) error {
			var ol wire.BatchOutputLine
			if json.Unmarshal(line, &ol) != nil {
				unreadable++
				return nil
			}
			f.to[ol.CustomID] = ol
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return out, errs, unreadable
}

func summaries(t *testing.T, n int, tag string) [][]byte {
	var out [][]byte
	for i := range n {
		out = append(out, chatBody(t, fmt.Sprintf("%s %d: Alice and Bob play chess on Sundays.", tag, i)))
	}
	return out
}

// TestBatchAnswersLikeChat: a batch is in progress until its delay has passed, then its output
// holds, for every request, the chat endpoint's answer to the same body; the stub counts each
// request's submissions.
func TestBatchAnswersLikeChat(t *testing.T) {
	const delay = 300 * time.Millisecond
	s, srv := start(t, Options{BatchDelay: delay})
	api := batchAPI(srv)
	bodies := summaries(t, 3, "group")
	submitted := time.Now()
	b := submit(t, api, wire.EndpointChat, bodies, map[string]string{llmbatch.MetaBatch: "local-1"})
	if b.Status != wire.BatchValidating || b.RequestCounts.Total != 3 || b.Metadata[llmbatch.MetaBatch] != "local-1" {
		t.Fatalf("created %+v", b)
	}
	ctx := context.Background()
	// A loaded machine may reach the first GET only after the delay: then completed is right.
	if b, _ = api.Get(ctx, b.ID); b.Status != wire.BatchInProgress && time.Since(submitted) < delay {
		t.Fatalf("before the delay: %s", b.Status)
	}
	time.Sleep(delay + 50*time.Millisecond)
	b, err := api.Get(ctx, b.ID)
	if err != nil || b.Status != wire.BatchCompleted || b.RequestCounts.Completed != 3 || b.OutputFileID == "" || b.ErrorFileID != "" {
		t.Fatalf("after the delay: %+v %v", b, err)
	}
	out, errs, unreadable := results(t, api, b)
	if len(out) != 3 || len(errs) != 0 || unreadable != 0 {
		t.Fatalf("%d answers, %d errors, %d unreadable", len(out), len(errs), unreadable)
	}
	for _, body := range bodies {
		ol := out[llmbatch.Key(wire.EndpointChat, body, 0)]
		_, _, online := post(t, srv, "/v1/chat/completions", body)
		var a, o wire.ChatResponse
		if ol.Response == nil || ol.Response.StatusCode != 200 || json.Unmarshal(ol.Response.Body, &a) != nil || json.Unmarshal(online, &o) != nil ||
			len(a.Choices) == 0 || a.Choices[0].Message.Content != o.Choices[0].Message.Content {
			t.Fatalf("batch answer %+v, chat answer %s", ol, online)
		}
	}
	submit(t, api, wire.EndpointChat, bodies[:2], nil)
	st := s.Stats()
	if st.Batches != 2 || st.BatchFiles != 2 || st.BatchRequests != 5 || st.BatchDistinct != 3 || st.BatchResubmitted != 2 || st.BatchMaxSubmissions != 2 {
		t.Fatalf("stats %+v", st)
	}
}

// TestBatchTroubles: error lines, expiry and unreadable lines each hit a request at most
// MaxFaults (2) times in a row, so a client that submits again what was not answered has every
// answer by the third submission.
func TestBatchTroubles(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  Options
		check func(errs map[string]wire.BatchOutputLine, unreadable int, b wire.Batch) string
	}{
		{"fail", Options{BatchFailRate: 1}, func(errs map[string]wire.BatchOutputLine, _ int, b wire.Batch) string {
			for _, e := range errs {
				if e.Response == nil || e.Response.StatusCode != 500 {
					return fmt.Sprintf("error line %+v", e)
				}
			}
			return want(len(errs) == 4 && b.Status == wire.BatchCompleted && b.RequestCounts.Failed == 4, "4 error lines")
		}},
		{"expire", Options{BatchExpireRate: 1}, func(errs map[string]wire.BatchOutputLine, _ int, b wire.Batch) string {
			for _, e := range errs {
				if e.Error == nil || e.Error.Code != wire.LineExpired {
					return fmt.Sprintf("error line %+v", e)
				}
			}
			return want(b.Status == wire.BatchExpired && len(errs) > 0, "an expired batch with undone requests")
		}},
		{"invalid", Options{BatchInvalidRate: 1}, func(errs map[string]wire.BatchOutputLine, unreadable int, b wire.Batch) string {
			return want(unreadable == 4 && len(errs) == 0, "4 unreadable lines")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := start(t, tt.opts)
			api := batchAPI(srv)
			todo := summaries(t, 4, tt.name)
			again := 0
			for sub := 0; len(todo) > 0; sub++ {
				if sub == 3 {
					t.Fatalf("%d requests still unanswered after 3 submissions", len(todo))
				}
				again += min(sub, 1) * len(todo)
				b := submit(t, api, wire.EndpointChat, todo, nil)
				b, err := api.Get(context.Background(), b.ID)
				if err != nil {
					t.Fatal(err)
				}
				out, errs, unreadable := results(t, api, b)
				if sub == 0 {
					if msg := tt.check(errs, unreadable, b); msg != "" {
						t.Fatalf("%s; got %d answers, %d error lines, %d unreadable, %+v", msg, len(out), len(errs), unreadable, b)
					}
				}
				var left [][]byte
				for _, body := range todo {
					if ol, ok := out[llmbatch.Key(wire.EndpointChat, body, 0)]; !ok || ol.Response.StatusCode != 200 {
						left = append(left, body)
					}
				}
				todo = left
			}
			if st := s.Stats(); st.BatchResubmitted != int64(again) || again == 0 || st.BatchMaxSubmissions > 3 {
				t.Fatalf("stats %+v, %d submitted again", st, again)
			}
		})
	}
}

func want(ok bool, what string) string {
	if ok {
		return ""
	}
	return "want " + what
}

// TestBatchCancelListAndValidation: a cancelled batch ends with what it did; the list pages
// newest first with metadata; a file over the limits fails its validation; embeddings batches
// are answered like the embeddings endpoint.
func TestBatchCancelListAndValidation(t *testing.T) {
	_, srv := start(t, Options{BatchDelay: time.Hour, BatchMaxRequests: 3})
	api := batchAPI(srv)
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		b := submit(t, api, wire.EndpointChat, summaries(t, 2, fmt.Sprint("list", i)), map[string]string{llmbatch.MetaBatch: fmt.Sprint("b", i)})
		ids = append(ids, b.ID)
	}
	page, err := api.List(ctx, "", 2)
	if err != nil || len(page.Data) != 2 || !page.HasMore || page.Data[0].ID != ids[2] || page.Data[0].Metadata[llmbatch.MetaBatch] != "b2" {
		t.Fatalf("first page %+v %v", page, err)
	}
	if page, err = api.List(ctx, page.LastID, 2); err != nil || len(page.Data) != 1 || page.HasMore || page.Data[0].ID != ids[0] {
		t.Fatalf("second page %+v %v", page, err)
	}
	c, err := api.Cancel(ctx, ids[0])
	if err != nil || c.Status != wire.BatchCancelled {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	if _, errs, _ := results(t, api, c); len(errs) != 2 || errs[llmbatch.Key(wire.EndpointChat, summaries(t, 1, "list0")[0], 0)].Error.Code != wire.LineCancelled {
		t.Fatalf("cancelled an hour early: error lines %+v", errs)
	}
	big := submit(t, api, wire.EndpointChat, summaries(t, 4, "big"), nil)
	if big.Status != wire.BatchFailed || big.Errors == nil || !strings.Contains(big.Errors.Data[0].Message, "more than 3") {
		t.Fatalf("4 requests over a limit of 3: %+v", big)
	}
	emb := submit(t, api, wire.EndpointEmbeddings, [][]byte{embedBody(1), embedBody(2)}, nil)
	if emb, err = api.Cancel(ctx, emb.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Get(ctx, "batch_nope"); err == nil {
		t.Fatal("an unknown batch was found")
	}
}

// TestBatchEmbeddings: an embeddings batch answers what the embeddings endpoint answers.
func TestBatchEmbeddings(t *testing.T) {
	_, srv := start(t, Options{})
	api := batchAPI(srv)
	b := submit(t, api, wire.EndpointEmbeddings, [][]byte{embedBody(1), embedBody(2)}, nil)
	b, err := api.Get(context.Background(), b.ID)
	if err != nil || b.Status != wire.BatchCompleted {
		t.Fatalf("%+v %v", b, err)
	}
	out, _, _ := results(t, api, b)
	for _, i := range []int{1, 2} {
		_, _, online := post(t, srv, "/v1/embeddings", embedBody(i))
		got := out[llmbatch.Key(wire.EndpointEmbeddings, embedBody(i), 0)]
		if got.Response == nil || !bytes.Equal(bytes.TrimSpace(got.Response.Body), bytes.TrimSpace(online)) {
			t.Fatalf("request %d: batch answer %s, online %s", i, got.Response.Body, online)
		}
	}
}

// TestBatchExpiryByRequests: whether a batch expires depends on the seed and the requests it
// carries, not on their order in the file nor on the batches created before it: two stubs with
// the same seed, one of them sent the batches reversed and each file's lines reversed, expire
// the same batches (16 sets, so an order-dependent choice passes by chance once in 65,536), and
// some of them but not all.
func TestBatchExpiryByRequests(t *testing.T) {
	opts := Options{BatchExpireRate: 0.5, Seed: 3}
	_, srvA := start(t, opts)
	_, srvB := start(t, opts)
	a, b := batchAPI(srvA), batchAPI(srvB)
	const sets = 16
	expiredA, expiredB := map[int]bool{}, map[int]bool{}
	for i := range sets {
		bodies := summaries(t, 3, fmt.Sprint("set", i))
		expiredA[i] = settled(t, a, submit(t, a, wire.EndpointChat, bodies, nil)).Status == wire.BatchExpired
	}
	for i := sets - 1; i >= 0; i-- {
		bodies := summaries(t, 3, fmt.Sprint("set", i))
		slices.Reverse(bodies)
		expiredB[i] = settled(t, b, submit(t, b, wire.EndpointChat, bodies, nil)).Status == wire.BatchExpired
	}
	n := 0
	for i := range sets {
		if expiredA[i] != expiredB[i] {
			t.Fatalf("set %d: expired %v in order, %v reversed", i, expiredA[i], expiredB[i])
		}
		if expiredA[i] {
			n++
		}
	}
	if n == 0 || n == sets {
		t.Fatalf("%d of %d batches expired at a rate of 0.5", n, sets)
	}
}

// settled polls a batch once (the stub ends it at the first poll after its delay).
func settled(t *testing.T, api *llmbatch.API, b wire.Batch) wire.Batch {
	t.Helper()
	got, err := api.Get(context.Background(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
