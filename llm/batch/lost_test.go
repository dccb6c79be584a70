package batch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
)

// callUntilAnswered makes every call in waves, settling the batches between waves, until all
// are answered (at most waves times).
func callUntilAnswered(t *testing.T, b *batch.Batcher, waves int, calls ...func() error) {
	t.Helper()
	for range waves {
		pending := false
		for _, call := range calls {
			err := call()
			if errors.Is(err, batch.ErrPending) {
				pending = true
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if !pending {
			return
		}
		settle(t, b)
	}
	t.Fatalf("no answers after %d waves", waves)
}

// TestBatchLostResubmittedOnce: a batch the provider no longer knows (404 on GET, confirmed by a
// second poll and its list) is recorded lost with the reason, not open; its requests are
// submitted again once, outside MaxRetries (here none), counted, and answered.
func TestBatchLostResubmittedOnce(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BatchLoseRate: 1, BatchLoseAfter: 1})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{MaxRetries: -1})
	var out [2]wire.NameOutput
	callUntilAnswered(t, b, 4, func() error { return c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(80), &out[0]) },
		func() error { return c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(81), &out[1]) })
	st := s.Stats()
	if st.BatchesLost != 1 || st.BatchLostRequests != 2 || st.BatchLostMinSubmissions != 2 || st.BatchLostMaxSubmissions != 2 ||
		out[0].Name == "" || out[1].Name == "" {
		t.Fatalf("stub %+v, answers %+v: want one lost batch whose two requests were submitted twice", st, out)
	}
	all, err := store.Batches(ctx)
	if err != nil || len(all) != 2 || all[0].State != batch.Lost || all[0].Open() || all[0].Ended != wire.BatchInProgress ||
		!strings.Contains(all[0].Reason, "404") || all[0].Unfinished != 2 || all[1].State != batch.Delivered {
		t.Fatalf("batches %+v (%v): want the first lost (last seen in progress, HTTP 404), the second delivered", all, err)
	}
	if open, _ := store.OpenBatches(ctx, batch.KindChat); len(open) != 0 {
		t.Fatalf("open batches %+v", open)
	}
	u := b.Usage()
	if u.Lost != 1 || u.Resubmitted != 2 || u.Unfinished != 2 || len(u.Failures) != 1 || u.Failures[0].State != batch.Lost ||
		u.Failures[0].Batch != all[0].ID {
		t.Fatalf("usage %+v", u)
	}
}

// TestBatchFailedReason: the provider's reason for a failed batch is recorded with it and in the
// usage's failures; its requests are submitted again and answered.
func TestBatchFailedReason(t *testing.T) {
	_, base := startBatchStub(t, stub.Options{BatchFailedRate: 1, MaxFaults: 1})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	var out wire.NameOutput
	callUntilAnswered(t, b, 4, func() error { return c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(90), &out) })
	all, err := store.Batches(ctx)
	if err != nil || len(all) != 2 || all[0].Ended != wire.BatchFailed || !strings.Contains(all[0].Reason, "stub_batch_failed: stub: injected batch failure") {
		t.Fatalf("batches %+v (%v): want the first failed with the stub's reason", all, err)
	}
	if u := b.Usage(); out.Name == "" || u.Resubmitted != 1 || len(u.Failures) != 1 || u.Failures[0].Reason != all[0].Reason ||
		u.Failures[0].State != wire.BatchFailed {
		t.Fatalf("answer %+v, usage %+v", out, u)
	}
}

// TestBatchFilesLost: a batch whose output file the provider no longer serves is lost: its
// requests are submitted again once and answered.
func TestBatchFilesLost(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BatchLoseFilesRate: 1})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	var out wire.NameOutput
	callUntilAnswered(t, b, 4, func() error { return c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(95), &out) })
	all, _ := store.Batches(ctx)
	if st := s.Stats(); out.Name == "" || st.BatchFilesLost != 1 || st.BatchLostMaxSubmissions != 2 || len(all) != 2 ||
		all[0].State != batch.Lost || all[0].Ended != wire.BatchCompleted || !strings.Contains(all[0].Reason, all[0].OutputFile) {
		t.Fatalf("answer %+v, stub %+v, batches %+v", out, st, all)
	}
}

// TestBatchResubmittedNotAgain: a run started again after a request was submitted a second
// time (its first batch answered it with an error line) finds that batch ended, delivers it and
// takes the answer: the earlier failed row does not make it submit the request a third time.
func TestBatchResubmittedNotAgain(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BatchFailRate: 1, MaxFaults: 1})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	call := func() error { return c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(97), nil) }
	if err := call(); !errors.Is(err, batch.ErrPending) {
		t.Fatal(err)
	}
	settle(t, b) // an error line
	if err := call(); !errors.Is(err, batch.ErrPending) {
		t.Fatal(err)
	}
	if err := b.Flush(ctx); err != nil { // submitted again; the run dies before it waits
		t.Fatal(err)
	}
	c2, _ := batchClient(t, base, store, nil, batch.Options{})
	var out wire.NameOutput
	if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(97), &out); err != nil || out.Name == "" {
		t.Fatalf("the next run: %v %+v", err, out)
	}
	if st := s.Stats(); st.BatchRequests != 2 || st.BatchMaxSubmissions != 2 {
		t.Fatalf("stub %+v: want the request submitted twice", st)
	}
}

// TestBatchRecoverWithoutList: a batch whose submission was cut off is looked for in the
// provider's list; a provider that serves no list (404) has not got it, and the batch is
// dropped (its requests asked again) instead of failing every run.
func TestBatchRecoverWithoutList(t *testing.T) {
	s := stub.New(stub.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/batches") {
			http.NotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	store := openStore(t)
	rec := batch.Record{ID: "bf-cut", Kind: batch.KindChat, Endpoint: wire.EndpointChat, State: batch.Submitting, InputFile: "file-x"}
	if err := store.AddBatch(ctx, rec); err != nil {
		t.Fatal(err)
	}
	_, b := batchClient(t, srv.URL+"/v1", store, nil, batch.Options{})
	if err := b.Recover(ctx); err != nil {
		t.Fatalf("Recover without a list at the provider: %v", err)
	}
	if all, _ := store.Batches(ctx); len(all) != 0 {
		t.Fatalf("batches %+v: want the cut-off batch dropped", all)
	}
}
