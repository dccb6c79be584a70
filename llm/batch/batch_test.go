package batch_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/llm"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/pacing"
	"github.com/tkgraph/backfill/llm/transport"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
)

// The batch tests run the real client against the real stub (in process) and record batches
// in a real checkpoint store.

const poll = 20 * time.Millisecond

func startBatchStub(t *testing.T, opts stub.Options) (*stub.Server, string) {
	t.Helper()
	s := stub.New(opts)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

func openStore(t *testing.T) *checkpoints.Store {
	t.Helper()
	st, err := checkpoints.Open(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// batchClient returns a gpt-4o-mini client in batch mode over store.
func batchClient(t *testing.T, base string, store *checkpoints.Store, budget *pacing.Budget, opts batch.Options) (*llm.Client, *batch.Batcher) {
	t.Helper()
	c := llm.NewClient(llm.Options{BaseURL: base, Model: "gpt-4o-mini", MaxAttempts: 2, BackoffBase: time.Millisecond, Budget: budget}, nil, nil, store)
	if opts.Poll == 0 {
		opts.Poll = poll
	}
	opts.SpoolDir = t.TempDir()
	return c, c.UseBatches(store, opts)
}

func nameInput(i int) wire.NameInput {
	return wire.NameInput{Summary: fmt.Sprintf("Community %d: Alice and Bob play chess every Sunday in Busan.", i)}
}

// settle flushes and waits for the batches once.
func settle(t *testing.T, b *batch.Batcher) int {
	t.Helper()
	ctx := context.Background()
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	n, err := b.Wait(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBatchCallAnswersLikeOnline: a call in batch mode waits (ErrPending) with its request and
// batch recorded before anything is awaited, and once the batch ends answers what an online
// call answers, under the same cache key, at half the price.
func TestBatchCallAnswersLikeOnline(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{})
	ctx := context.Background()
	online := llm.NewClient(llm.Options{BaseURL: base, Model: "gpt-4o-mini"}, nil, nil, cache.NewMemory())
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	var want, got wire.NameOutput
	if err := online.Call(ctx, "community", wire.TaskNameCommunity, nameInput(1), &want); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(1), &got); !errors.Is(err, batch.ErrPending) {
		t.Fatalf("first call: %v, want ErrPending", err)
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	open, err := store.OpenBatches(ctx, batch.KindChat)
	if err != nil || len(open) != 1 || open[0].ProviderID == "" || open[0].InputFile == "" || open[0].Requests != 1 {
		t.Fatalf("recorded before waiting: %+v %v", open, err)
	}
	if n, err := b.Wait(ctx, nil); n != 1 || err != nil {
		t.Fatalf("waited for %d batches: %v", n, err)
	}
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(1), &got); err != nil || got != want || got.Name == "" {
		t.Fatalf("batch answer %+v (%v), online %+v", got, err, want)
	}
	ou, bu := online.Usage().Total, c.Usage().Total
	if bu.Calls != 1 || bu.PromptTokens != ou.PromptTokens || bu.CompletionTokens != ou.CompletionTokens ||
		math.Abs(2*bu.CostUSD-ou.CostUSD) > 1e-12 || bu.CostUSD == 0 {
		t.Fatalf("batch usage %+v, online %+v: want the same tokens at half the cost", bu, ou)
	}
	// The same cache key as online: an online client over the store asks nothing.
	again := llm.NewClient(llm.Options{BaseURL: base, Model: "gpt-4o-mini"}, nil, nil, store)
	if err := again.Call(ctx, "community", wire.TaskNameCommunity, nameInput(1), &got); err != nil || again.Usage().Total.CacheHits != 1 {
		t.Fatalf("online after batch: %v, usage %+v", err, again.Usage().Total)
	}
	if st := s.Stats(); st.BatchRequests != 1 || st.ChatCalls != 1 {
		t.Fatalf("stub %+v", st)
	}
	if u := b.Usage(); u.Batches != 1 || u.Requests != 1 || u.Answers != 1 || u.Resubmitted != 0 {
		t.Fatalf("batch usage %+v", u)
	}
}

// TestBatchInvalidAnswersRetryInNextBatches: an answer that fails validation is asked again
// with the error fed back, in the next batch, as many times as online; then the call fails
// with a *ValidationError (a bad answer: it fails the unit).
func TestBatchInvalidAnswersRetryInNextBatches(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BadRate: 1, BadKinds: []string{stub.BadMalformed}})
	ctx := context.Background()
	c, b := batchClient(t, base, openStore(t), nil, batch.Options{})
	var err error
	batches := 0
	for range 5 {
		if err = c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(2), nil); !errors.Is(err, batch.ErrPending) {
			break
		}
		batches += settle(t, b)
	}
	var v *wire.ValidationError
	if !errors.As(err, &v) || v.Attempts != 3 || !transport.IsBadAnswer(err) || batches != 3 {
		t.Fatalf("after %d batches: %v, want a ValidationError after 3 attempts", batches, err)
	}
	u := c.Usage().Total
	if u.InvalidAnswers != 3 || u.Retries != 2 || u.Calls != 3 {
		t.Fatalf("usage %+v", u)
	}
	if st := s.Stats(); st.BatchRequests != 3 || st.BatchDistinct != 3 || st.BatchResubmitted != 0 {
		t.Fatalf("stub %+v: want three different requests (the feedback differs), each once", st)
	}
}

// TestBatchFailuresRetryThenFallBack: a request answered by error lines is submitted again at
// most MaxRetries times; then it fails the run (a transient error), or goes online with
// FallbackOnline.
func TestBatchFailuresRetryThenFallBack(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		t.Run(fmt.Sprint("fallback=", fallback), func(t *testing.T) {
			s, base := startBatchStub(t, stub.Options{BatchFailRate: 1, MaxFaults: -1})
			ctx := context.Background()
			c, b := batchClient(t, base, openStore(t), nil, batch.Options{MaxRetries: 1, FallbackOnline: fallback})
			var out wire.NameOutput
			var err error
			for range 4 {
				if err = c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(3), &out); !errors.Is(err, batch.ErrPending) {
					break
				}
				settle(t, b)
			}
			st := s.Stats()
			if st.BatchRequests != 2 || st.BatchResubmitted != 1 {
				t.Fatalf("stub %+v: want the request submitted twice", st)
			}
			u := b.Usage()
			if fallback {
				if err != nil || out.Name == "" || st.ChatCalls != 1 || u.FallbackOnline != 1 {
					t.Fatalf("fallback: %v %+v, stub %+v, usage %+v", err, out, st, u)
				}
				return
			}
			if !transport.IsRetryable(err) || transport.IsBadAnswer(err) || st.ChatCalls != 0 || u.Errors != 2 || u.Resubmitted != 1 {
				t.Fatalf("no fallback: %v, stub %+v, usage %+v", err, st, u)
			}
		})
	}
}

// TestBatchLimits: batches hold at most MaxRequests lines and MaxBytes bytes; a request larger
// than a batch file is refused as a bad request.
func TestBatchLimits(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{MaxRequests: 2})
	for i := range 5 {
		if err := c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(10+i), nil); !errors.Is(err, batch.ErrPending) {
			t.Fatal(err)
		}
	}
	if n := settle(t, b); n != 3 {
		t.Fatalf("5 requests, at most 2 per batch: %d batches", n)
	}
	all, err := store.Batches(ctx)
	if err != nil || len(all) != 3 || all[0].Requests != 2 || all[2].Requests != 1 {
		t.Fatalf("batches %+v %v", all, err)
	}
	// Byte limit: about two lines per file.
	c2, b2 := batchClient(t, base, openStore(t), nil, batch.Options{MaxBytes: int64(all[0].Bytes) + 100})
	for i := range 5 {
		if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(20+i), nil); !errors.Is(err, batch.ErrPending) {
			t.Fatal(err)
		}
	}
	if n := settle(t, b2); n != 3 {
		t.Fatalf("5 requests, two lines' bytes per file: %d batches", n)
	}
	c3, _ := batchClient(t, base, openStore(t), nil, batch.Options{MaxBytes: 100})
	if err := c3.Call(ctx, "community", wire.TaskNameCommunity, nameInput(1), nil); !transport.IsBadAnswer(err) {
		t.Fatalf("a request larger than a batch file: %v", err)
	}
	if st := s.Stats(); st.BatchRequests != 10 || st.BatchResubmitted != 0 {
		t.Fatalf("stub %+v", st)
	}
}

// TestBatchRecover: a batch created at the provider by a run that died before recording its id
// is found by its metadata and polled, not submitted again; a batch that was only queued is
// dropped and its request asked again.
func TestBatchRecover(t *testing.T) {
	// The delay outlasts the steps before the first Call after Recover even on a loaded machine
	// (with 200 ms the adopted batch could end first, and Recover then collect its answers).
	s, base := startBatchStub(t, stub.Options{BatchDelay: 3 * time.Second})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	for i := range 2 {
		if err := c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(30+i), nil); !errors.Is(err, batch.ErrPending) {
			t.Fatal(err)
		}
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	open, _ := store.OpenBatches(ctx, batch.KindChat)
	// The run "died" right after creating the batch: the store lacks its provider id.
	rec := open[0]
	rec.ProviderID, rec.State = "", batch.Submitting
	if err := store.UpdateBatch(ctx, rec); err != nil {
		t.Fatal(err)
	}
	// And a batch that was never sent.
	queued := batch.Record{ID: "bf-queued", Kind: batch.KindChat, Endpoint: wire.EndpointChat, State: batch.Queued, CreatedAt: time.Now()}
	if err := store.AddBatch(ctx, queued); err != nil {
		t.Fatal(err)
	}
	key := "never-sent-request"
	if err := store.AddBatchRequest(ctx, batch.Request{Key: key, Batch: queued.ID, Stage: "community", Task: wire.TaskNameCommunity,
		Keys: []string{"k"}, Status: batch.ReqPending}); err != nil {
		t.Fatal(err)
	}
	c2, b2 := batchClient(t, base, store, nil, batch.Options{})
	if err := b2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	open, _ = store.OpenBatches(ctx, batch.KindChat)
	if len(open) != 1 || open[0].ID != rec.ID || open[0].ProviderID == "" {
		t.Fatalf("after recovery: %+v", open)
	}
	if rows, _ := store.BatchRequests(ctx, key); len(rows) != 0 {
		t.Fatalf("the queued batch's request is still recorded: %+v", rows)
	}
	for i := range 2 {
		if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(30+i), nil); !errors.Is(err, batch.ErrPending) {
			t.Fatal(err)
		}
	}
	if n := settle(t, b2); n != 1 {
		t.Fatalf("waited for %d batches, want the adopted one", n)
	}
	for i := range 2 {
		if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(30+i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if st := s.Stats(); st.BatchRequests != 2 || st.Batches != 1 {
		t.Fatalf("stub %+v: want one batch of two requests, never submitted again", st)
	}
}

// TestBatchBudgetAndDrain: each request books its estimate when it is queued; the one that
// would pass the budget is refused (*BudgetError) and the ones before it are submitted. A
// draining run queues nothing and Flush drops what was queued.
func TestBatchBudgetAndDrain(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{})
	ctx := context.Background()
	c, b := batchClient(t, base, openStore(t), pacing.NewBudget(0.00004), batch.Options{})
	var err error
	admitted := 0
	for i := range 10 {
		if err = c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(40+i), nil); !errors.Is(err, batch.ErrPending) {
			break
		}
		admitted++
	}
	if !errors.Is(err, pacing.ErrBudgetExceeded) || admitted == 0 || admitted == 10 {
		t.Fatalf("after %d requests: %v, want a budget stop", admitted, err)
	}
	settle(t, b)
	if st := s.Stats(); st.BatchRequests != int64(admitted) {
		t.Fatalf("stub saw %d requests, %d were admitted", st.BatchRequests, admitted)
	}

	stop := make(chan struct{})
	store := openStore(t)
	c2, b2 := batchClient(t, base, store, nil, batch.Options{Stop: stop})
	if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(50), nil); !errors.Is(err, batch.ErrPending) {
		t.Fatal(err)
	}
	close(stop)
	if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(51), nil); !errors.Is(err, pacing.ErrStopped) {
		t.Fatalf("a call while draining: %v", err)
	}
	if err := b2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if all, _ := store.Batches(ctx); len(all) != 0 {
		t.Fatalf("a draining run left batches %+v", all)
	}
}

// TestBatchCancelledResubmitted: the requests a cancelled batch left undone are submitted again
// in the next batch and answered. (The stub's batches would take an hour; a cancelled one has
// done nothing, except a request already left undone MaxFaults times in a row.)
func TestBatchCancelledResubmitted(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BatchDelay: time.Hour, MaxFaults: 1})
	ctx := context.Background()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	api := batch.NewAPI(&transport.Poster{BaseURL: base})
	var out wire.NameOutput
	var err error
	for range 3 {
		if err = c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(60), &out); !errors.Is(err, batch.ErrPending) {
			break
		}
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		open, _ := store.OpenBatches(ctx, batch.KindChat)
		if bt, err := api.Cancel(ctx, open[0].ProviderID); err != nil || bt.Status != wire.BatchCancelled {
			t.Fatalf("cancel: %+v %v", bt, err)
		}
		if _, err := b.Wait(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	u := b.Usage()
	if err != nil || out.Name == "" || u.Unfinished != 1 || u.Resubmitted != 1 || u.Answers != 1 || s.Stats().BatchesCancelled != 2 {
		t.Fatalf("after a cancelled batch: %v %+v, usage %+v, stub %+v", err, out, u, s.Stats())
	}
}

// TestBatchWaitStops: a stop while the run waits for a batch ends the wait at once with
// ErrStopped (what `backfill run` turns into exit 130 on the first SIGINT), without cancelling
// the batch: it stays recorded and open, and a later Wait over the same store polls it again.
// The stub's batch would take an hour, so a wait that ignored the stop could only end by the
// context's deadline (a bound against hanging, far above any scheduling delay).
func TestBatchWaitStops(t *testing.T) {
	s, base := startBatchStub(t, stub.Options{BatchDelay: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store := openStore(t)
	c, b := batchClient(t, base, store, nil, batch.Options{})
	if err := c.Call(ctx, "community", wire.TaskNameCommunity, nameInput(70), nil); !errors.Is(err, batch.ErrPending) {
		t.Fatal(err)
	}
	if err := b.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	close(stop)
	if n, err := b.Wait(ctx, stop); !errors.Is(err, pacing.ErrStopped) || n != 1 {
		t.Fatalf("Wait after a stop = %d, %v; want 1 batch and ErrStopped", n, err)
	}
	open, err := store.OpenBatches(ctx, batch.KindChat)
	if err != nil || len(open) != 1 || open[0].ProviderID == "" || wire.BatchEnded(open[0].State) {
		t.Fatalf("after the stop: %+v %v; want the batch recorded, submitted and open", open, err)
	}
	if st := s.Stats(); st.BatchesCancelled != 0 || st.Batches != 1 {
		t.Fatalf("stub %+v: want one batch, not cancelled", st)
	}
	// The next run (a new client over the same store) finds the request in that batch.
	c2, b2 := batchClient(t, base, store, nil, batch.Options{})
	if err := c2.Call(ctx, "community", wire.TaskNameCommunity, nameInput(70), nil); !errors.Is(err, batch.ErrPending) {
		t.Fatal(err)
	}
	if err := b2.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := b2.Wait(ctx, stop); !errors.Is(err, pacing.ErrStopped) || n != 1 || s.Stats().Batches != 1 {
		t.Fatalf("the next run's Wait = %d, %v, stub %+v; want the same batch polled, nothing submitted", n, err, s.Stats())
	}
}
