package graphdb

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// watcher is an Observer that counts what it is told.
type watcher struct {
	mu                   sync.Mutex
	batches, rows, ended int
	retries              int
	verified, mismatched int
}

func (w *watcher) Batch(_ context.Context, b Batch) func(int, error) {
	w.mu.Lock()
	w.batches++
	w.mu.Unlock()
	return func(retries int, err error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.ended++
		w.retries += retries
		if err == nil {
			w.rows += b.Rows
		}
	}
}

func (w *watcher) Verified(_ context.Context, dialect string, groups int, mismatch bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if mismatch {
		w.mismatched++
	} else {
		w.verified++
	}
}

// The observer sees every write transaction (the rows and batches the result counts, each
// ended once, with the retries) and every chunk's verification.
func TestObserverSeesBatchesAndVerifications(t *testing.T) {
	db := newFakeDB()
	lost := false
	db.failAfter = func(c string) error { // the first batch's answer is lost once: a retry
		if strings.HasPrefix(c, cypher.RowsPrefix) && !lost {
			lost = true
			return connErr()
		}
		return nil
	}
	w := &watcher{}
	res, done, err := fakeLoad(t, fakeLoader(cypher.Neo4j, Options{Sessions: 2, ChunkRows: 30, BatchSize: 4, Observer: w}, db), manyGroups())
	if err != nil {
		t.Fatal(err)
	}
	if w.batches != res.Batches || w.ended != w.batches || w.rows != res.Nodes+res.Edges {
		t.Fatalf("observed %d batches (%d ended) of %d rows; result %d batches of %d rows", w.batches, w.ended, w.rows,
			res.Batches, res.Nodes+res.Edges)
	}
	if w.verified != len(done) || w.mismatched != 0 {
		t.Fatalf("%d verifications (%d mismatched), %d chunks recorded", w.verified, w.mismatched, len(done))
	}
	if w.retries == 0 {
		t.Fatal("the retried transaction was not observed")
	}
}
