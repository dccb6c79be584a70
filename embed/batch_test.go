package embed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/embed"
	"github.com/tkgraph/backfill/llm/batch"
	"github.com/tkgraph/backfill/providers/stub"
)

// TestEmbedBatchMode: in batch mode Embed queues its requests (batch.ErrPending) and, once the
// batches ended, returns the vectors the embeddings endpoint returns online; unreadable answer
// lines are submitted again.
func TestEmbedBatchMode(t *testing.T) {
	s := stub.New(stub.Options{BatchInvalidRate: 0.5, Seed: 3})
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, filepath.Join(t.TempDir(), "cp.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	opts := embed.Options{BaseURL: srv.URL + "/v1", Model: "text-embedding-3-small", Dimensions: 16, BatchSize: 4}
	online := embed.NewClient(opts, nil, nil)
	batched := embed.NewClient(opts, nil, store)
	b := batched.UseBatches(store, batch.Options{Poll: 10 * time.Millisecond, SpoolDir: t.TempDir()})
	var texts []string
	for i := range 10 {
		texts = append(texts, fmt.Sprintf("fact number %d about Alice", i))
	}
	want, err := online.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]float32
	waves := 0
	for wctx := ctx; waves < 5; waves++ {
		if got, err = batched.Embed(wctx, texts); !errors.Is(err, batch.ErrPending) {
			break
		}
		wctx = batch.Replaying(ctx) // as stages.RunStream marks later waves
		if err := b.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Wait(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after %d waves: %v; vectors equal: %v", waves, err, reflect.DeepEqual(got, want))
	}
	st, u := s.Stats(), b.Usage()
	if st.BatchInvalidLines == 0 || u.InvalidLines != int(st.BatchInvalidLines) || u.Resubmitted == 0 || u.Requests != int(st.BatchRequests) ||
		u.Requests != 3+u.Resubmitted {
		t.Fatalf("stub %+v, usage %+v: want 3 requests of 4 texts, the unreadable ones submitted again", st, u)
	}
	if eu := batched.Usage(); eu.Texts != 10 || eu.CostUSD <= 0 || eu.CacheHits != 0 {
		t.Fatalf("embedder usage %+v", eu)
	}
}
