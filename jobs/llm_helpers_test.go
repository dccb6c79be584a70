package jobs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
)

// newTestLogger logs everything, debug included, as text into buf.
func newTestLogger(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func reportJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadDemo loads the demo job with sets, returning the error instead of failing.
func loadDemo(t *testing.T, sets ...string) (*Job, error) {
	t.Helper()
	return Load(filepath.Join("examples", "demo.yaml"), sets, func(string) (string, bool) { return "", false })
}
