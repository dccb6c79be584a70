package pipeline_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/llm/wire"
	"github.com/tkgraph/backfill/providers/stub"
)

// TestClientsSharePacer: chat and embedding requests of a run pass one pacer, so together they
// never exceed llm.concurrency in flight.
func TestClientsSharePacer(t *testing.T) {
	s := stub.New(stub.Options{Latency: 30 * time.Millisecond})
	j := jobstest.StubJob(t, jobstest.StartStub(t, s), "llm.concurrency=2")
	ctx := context.Background()
	store, err := checkpoints.Open(ctx, j.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	cl, err := pipeline.NewClients(j, store, jobstest.NoEnv, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cl.LLM.Pacer() != cl.Pacer || cl.Embedder.Pacer() != cl.Pacer {
		t.Fatal("the clients do not share the run's pacer")
	}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			in := wire.NameInput{Summary: fmt.Sprint("Alice and Bob play chess ", i)}
			if err := cl.LLM.Call(ctx, "community", wire.TaskNameCommunity, in, nil); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := cl.Embedder.Embed(ctx, []string{fmt.Sprint("text ", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st, u := s.Stats(), cl.Usage()
	if st.MaxInFlight != 2 || u.Total.MaxInFlight != 2 || st.ChatCalls != 4 || st.EmbeddingCalls != 4 {
		t.Fatalf("stub %+v, usage %+v", st, u.Total)
	}
	if u.Stages["embed"].Calls != 4 || u.Total.Calls != 8 || u.Total.CostUSD <= u.Stages["community"].CostUSD {
		t.Fatalf("usage not merged: %+v", u)
	}
}
