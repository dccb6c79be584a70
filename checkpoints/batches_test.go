package checkpoints

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestBatchRecords: batches and their request rows round-trip; settling deletes valid rows and
// caches their answers, records the others, and finishing marks the rest unfinished; a
// forgotten key keeps only its pending rows; a dropped batch takes its rows with it.
func TestBatchRecords(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	b := batchrec.Record{ID: "b1", Kind: batchrec.KindChat, Endpoint: wire.EndpointChat, State: batchrec.Queued, CreatedAt: at, UpdatedAt: at}
	if err := s.AddBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatch(ctx, b); err == nil {
		t.Fatal("a batch id was recorded twice")
	}
	for _, k := range []string{"k1", "k2", "k3", "k4"} {
		r := batchrec.Request{Key: k, Batch: "b1", Stage: "extract", Task: wire.TaskExtractEntities, Keys: []string{"cache-" + k}, Status: batchrec.ReqPending}
		if err := s.AddBatchRequest(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	b.State, b.ProviderID, b.InputFile, b.Requests, b.Bytes, b.EstCostUSD = wire.BatchInProgress, "batch_x", "file_x", 4, 1234, 0.5
	if err := s.UpdateBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.BatchRecord(ctx, "b1")
	if err != nil || !ok || !reflect.DeepEqual(got, b) {
		t.Fatalf("batch %+v %v %v, want %+v", got, ok, err, b)
	}
	if open, err := s.OpenBatches(ctx, batchrec.KindChat); err != nil || len(open) != 1 {
		t.Fatalf("open chat batches %+v %v", open, err)
	}
	if open, _ := s.OpenBatches(ctx, batchrec.KindEmbeddings); len(open) != 0 {
		t.Fatalf("open embeddings batches %+v", open)
	}
	entry := cache.Entry{Namespace: "extract", Response: []byte(`{"entities":[]}`), PromptTokens: 10, CompletionTokens: 2}
	rows := []batchrec.Request{
		{Key: "k1", Batch: "b1", Status: batchrec.ReqValid},
		{Key: "k2", Batch: "b1", Status: batchrec.ReqInvalid, Detail: "answer: empty answer", Raw: []byte("x"), Finish: wire.FinishLength},
		{Key: "k3", Batch: "b1", Status: batchrec.ReqFailed, Code: 500, Detail: "server_error: boom"},
	}
	if err := s.SettleBatchRequests(ctx, rows, []cache.Keyed{{Key: "cache-k1", Entry: entry}}); err != nil {
		t.Fatal(err)
	}
	if e, hit, _ := s.Get(ctx, "cache-k1"); !hit || string(e.Response) != `{"entities":[]}` || e.PromptTokens != 10 {
		t.Fatalf("cached answer %+v %v", e, hit)
	}
	if r, _ := s.BatchRequests(ctx, "k1"); len(r) != 0 {
		t.Fatalf("a valid row is kept: %+v", r)
	}
	if r, ok, _ := s.BatchRequestIn(ctx, "b1", "k2"); !ok || r.Status != batchrec.ReqInvalid || string(r.Raw) != "x" || r.Finish != wire.FinishLength ||
		r.Keys[0] != "cache-k2" || r.Task != wire.TaskExtractEntities {
		t.Fatalf("invalid row %+v", r)
	}
	b.State, b.Ended, b.Answers, b.Invalid, b.Errors = batchrec.Delivered, wire.BatchExpired, 2, 1, 1
	n, err := s.FinishBatch(ctx, b)
	if err != nil || n != 1 {
		t.Fatalf("finish: %d unfinished, %v", n, err)
	}
	if r, _, _ := s.BatchRequestIn(ctx, "b1", "k4"); r.Status != batchrec.ReqUnfinished {
		t.Fatalf("k4 %+v", r)
	}
	if got, _, _ := s.BatchRecord(ctx, "b1"); got.Unfinished != 1 || got.Open() {
		t.Fatalf("finished batch %+v", got)
	}
	// k3 is submitted again in b2 and still pending there.
	b2 := batchrec.Record{ID: "b2", Kind: batchrec.KindChat, Endpoint: wire.EndpointChat, State: batchrec.Queued, CreatedAt: at.Add(time.Second), UpdatedAt: at}
	if err := s.AddBatch(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatchRequest(ctx, batchrec.Request{Key: "k3", Batch: "b2", Keys: []string{"c"}, Status: batchrec.ReqPending}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.BatchRequests(ctx, "k3"); len(r) != 2 || r[0].Batch != "b1" || r[1].Batch != "b2" {
		t.Fatalf("k3's rows, oldest first: %+v", r)
	}
	if err := s.ForgetBatchRequests(ctx, []string{"k2", "k3"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.BatchRequests(ctx, "k3"); len(r) != 1 || r[0].Status != batchrec.ReqPending {
		t.Fatalf("after forgetting k3: %+v (its pending row stays)", r)
	}
	if r, _ := s.BatchRequests(ctx, "k2"); len(r) != 0 {
		t.Fatalf("after forgetting k2: %+v", r)
	}
	if err := s.DropBatch(ctx, "b2"); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.BatchRequests(ctx, "k3"); len(r) != 0 {
		t.Fatalf("a dropped batch left %+v", r)
	}
	if all, _ := s.Batches(ctx); len(all) != 1 || all[0].ID != "b1" {
		t.Fatalf("batches %+v", all)
	}
}

// TestLostBatch: a lost batch keeps its reason, is no longer open, and its pending rows become
// lost (with the reason) rather than unfinished.
func TestLostBatch(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := batchrec.Record{ID: "b1", Kind: batchrec.KindChat, Endpoint: wire.EndpointChat, State: wire.BatchInProgress, ProviderID: "batch_x"}
	if err := s.AddBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.AddBatchRequest(ctx, batchrec.Request{Key: "k1", Batch: "b1", Keys: []string{"c"}, Status: batchrec.ReqPending}); err != nil {
		t.Fatal(err)
	}
	b.Ended, b.State, b.Reason = b.State, batchrec.Lost, "the provider no longer knows the batch (HTTP 404)"
	n, err := s.FinishBatch(ctx, b)
	if err != nil || n != 1 {
		t.Fatalf("finishing: %d rows, %v", n, err)
	}
	got, _, _ := s.BatchRecord(ctx, "b1")
	rows, _ := s.BatchRequests(ctx, "k1")
	open, _ := s.OpenBatches(ctx, batchrec.KindChat)
	if got.State != batchrec.Lost || got.Reason != b.Reason || got.Unfinished != 1 || got.Open() || len(open) != 0 ||
		len(rows) != 1 || rows[0].Status != batchrec.ReqLost || rows[0].Detail != "the batch is lost: "+b.Reason {
		t.Fatalf("batch %+v, rows %+v, open %+v", got, rows, open)
	}
}

// TestMigratesVersion7: a store of schema version 7 keeps its batches and gains their reason.
func TestMigratesVersion7(t *testing.T) {
	ctx := context.Background()
	path := oldStore(t, "7", `CREATE TABLE llm_batches (`+batchesColumnsV7+`)`,
		`INSERT INTO llm_batches VALUES ('b1','chat','/v1/chat/completions','batch_x','f','','','in_progress','',1,10,0,0,0,0,0,0,0,0,0)`)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("opening a version 7 store: %v", err)
	}
	defer s.Close()
	open, err := s.OpenBatches(ctx, batchrec.KindChat)
	if err != nil || len(open) != 1 || open[0].ProviderID != "batch_x" || open[0].Reason != "" {
		t.Fatalf("open batches of the migrated store %+v, %v", open, err)
	}
}
