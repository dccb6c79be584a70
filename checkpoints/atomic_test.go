package checkpoints

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// TestAtomically: writes inside Atomically are seen by its reads, kept when fn succeeds, and
// all undone when it fails, including those of savepoints that succeeded; a failed savepoint
// undoes only itself.
func TestAtomically(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ref := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	boom := errors.New("refused")
	tests := []struct {
		name   string
		fail   bool
		stored int // episodes after Atomically
	}{
		{"refused", true, 0},
		{"committed", false, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			err := s.Atomically(ctx, func(ctx context.Context) error {
				for i, key := range []string{"a", "b"} {
					if _, err := s.UpsertEpisodes(ctx, []graph.Episode{ep(key, "g", ref, int64(i))}, at); err != nil {
						t.Fatal(err)
					}
				}
				if err := s.Write(ctx, func(*Tx) error { return errors.New("one savepoint fails") }); err == nil {
					t.Fatal("a failing Write returned nil")
				}
				if n, err := s.CountEpisodes(ctx); err != nil || n != 2 {
					t.Fatalf("inside: %d episodes (%v), want the 2 written", n, err)
				}
				if err := s.Atomically(ctx, func(context.Context) error { return nil }); err == nil {
					t.Fatal("a nested Atomically returned nil")
				}
				if tc.fail {
					return boom
				}
				return nil
			})
			if tc.fail != errors.Is(err, boom) || !tc.fail && err != nil {
				t.Fatalf("Atomically: %v", err)
			}
			if n, err := s.CountEpisodes(ctx); err != nil || n != tc.stored {
				t.Fatalf("after: %d episodes (%v), want %d", n, err, tc.stored)
			}
		})
	}
}
