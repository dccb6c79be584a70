package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvLoCoMo names the LoCoMo dataset file when it is not at its default place.
const EnvLoCoMo = "LOCOMO"

// LoCoMoPath returns the LoCoMo dataset file: env (the LOCOMO variable's value, or a flag's)
// when it is not empty, else ../shared/datasets/locomo/locomo10.json beside the repository root.
// ok is false when no file is there.
func LoCoMoPath(root, env string) (path string, ok bool) {
	path = env
	if path == "" {
		path = filepath.Join(filepath.Dir(root), "shared", "datasets", "locomo", "locomo10.json")
	}
	st, err := os.Stat(path)
	return path, err == nil && st.Mode().IsRegular()
}

// NoLoCoMo says that the dataset is not at path and how to provide it.
func NoLoCoMo(path string) string {
	return fmt.Sprintf("the LoCoMo dataset is not at %s: it is not part of the repository (CC BY-NC 4.0); "+
		"put locomo10.json at ../shared/datasets/locomo/ beside the repository or set %s (docs/getting-started.md, \"The LoCoMo dataset\")", path, EnvLoCoMo)
}

// LoCoMo returns the LoCoMo dataset file (LoCoMoPath with $LOCOMO) or skips the test with
// NoLoCoMo: the dataset cannot be installed by the tests, so its absence is a skip, never a
// failure.
func LoCoMo(t testing.TB, root string) string {
	t.Helper()
	path, ok := LoCoMoPath(root, os.Getenv(EnvLoCoMo))
	if !ok {
		t.Skip(NoLoCoMo(path))
	}
	return path
}
