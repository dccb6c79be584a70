package pipeline

import (
	"path/filepath"
	"testing"
)

// loadDemo loads the demo job with sets, returning the error instead of failing.
func loadDemo(t *testing.T, sets ...string) (*Job, error) {
	t.Helper()
	return Load(filepath.Join("..", "examples", "demo.yaml"), sets, func(string) (string, bool) { return "", false })
}
