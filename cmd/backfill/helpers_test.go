package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// backfill runs a command line in-process through the cobra tree, as main does (with query's
// and timeline's "now" at queryNow), and returns the exit code and standard output.
func backfill(ctx context.Context, args ...string) (int, string) {
	var out bytes.Buffer
	code := execute(ctx, &cli{out: &out, now: func() time.Time { return queryNow }}, args)
	return code, out.String()
}

// mustBackfill is backfill that fails the test on an exit code other than want.
func mustBackfill(t *testing.T, want int, args ...string) string {
	t.Helper()
	code, out := backfill(t.Context(), args...)
	if code != want {
		t.Fatalf("backfill %q: exit %d, want %d", args, code, want)
	}
	return out
}
