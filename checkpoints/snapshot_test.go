package checkpoints

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/wire"
)

// TestSnapshot: a snapshot holds every commit made before it, opens read-only on its own (no
// -wal file beside it) and reopens for writing; Version changes with a commit and only then;
// meta keys round-trip and schema_version cannot be set.
func TestSnapshot(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := Open(ctx, filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep("a", "g", ref, 1)}, ref); err != nil {
		t.Fatal(err)
	}
	v1, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Version(ctx); v != v1 {
		t.Errorf("Version changed from %d to %d with no commit", v1, v)
	}
	if err := s.SetMeta(ctx, "replica.snapshot", "s1"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "schema_version", "1"); err == nil {
		t.Error("SetMeta changed schema_version")
	}
	v2, _ := s.Version(ctx)
	if v2 == v1 {
		t.Error("Version did not change with a commit")
	}
	snap := filepath.Join(dir, "snap.db")
	if err := s.Snapshot(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep("b", "g", ref, 2)}, ref); err != nil { // after: not in it
		t.Fatal(err)
	}
	if _, err := os.Stat(snap + "-wal"); err == nil {
		t.Error("the snapshot has a -wal file")
	}
	r, err := OpenReadOnly(ctx, snap)
	if err != nil {
		t.Fatal(err)
	}
	n, err := r.CountEpisodes(ctx)
	m, ok, merr := r.Meta(ctx, "replica.snapshot")
	r.Close()
	if err != nil || n != 1 || merr != nil || !ok || m != "s1" {
		t.Errorf("the snapshot holds %d episodes (%v) and meta %q %v (%v), want 1 and s1", n, err, m, ok, merr)
	}
	w, err := Open(ctx, snap)
	if err != nil {
		t.Fatalf("reopening a snapshot for writing: %v", err)
	}
	w.Close()
}

// TestHooks: Checkpoint runs Checkpointed, a batch recorded as submitting with its input file
// runs Barrier (and fails with its error), Close runs Closing then Closed once.
func TestHooks(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	barrierErr := errors.New("no bucket")
	s.SetHooks(Hooks{
		Checkpointed: func(context.Context) { calls = append(calls, "checkpointed") },
		Barrier:      func(context.Context) error { calls = append(calls, "barrier"); return barrierErr },
		Closing:      func() error { calls = append(calls, "closing"); return nil },
		Closed:       func() error { calls = append(calls, "closed"); return nil },
	})
	if err := s.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	b := batchrec.Record{ID: "b1", Kind: batchrec.KindChat, Endpoint: wire.EndpointChat, State: batchrec.Queued}
	if err := s.AddBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.State = batchrec.Submitting
	if err := s.UpdateBatch(ctx, b); err != nil { // no input file yet: nothing to bill
		t.Fatal(err)
	}
	b.InputFile = "file-1"
	if err := s.UpdateBatch(ctx, b); !errors.Is(err, barrierErr) {
		t.Errorf("UpdateBatch = %v, want the barrier's error", err)
	}
	b.State = wire.BatchInProgress
	if err := s.UpdateBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"checkpointed", "barrier", "closing", "closed"}
	if len(calls) != len(want) {
		t.Fatalf("hooks ran %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Fatalf("hooks ran %v, want %v", calls, want)
		}
	}
}
