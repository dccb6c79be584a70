package loaders

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestMatchPath(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"a/*.jsonl", "a/x.jsonl", true},
		{"a/*.jsonl", "a/b/x.jsonl", false},
		{"a/**/*.jsonl", "a/x.jsonl", true},
		{"a/**/*.jsonl", "a/b/c/x.jsonl", true},
		{"a/**", "a/b/c", true},
		{"**/x.jsonl", "x.jsonl", true},
		{"a/**/**/x", "a/x", true},
		{"a/**/b/*.p", "a/q/b/c/z.p", false},
		{"export[1].jsonl", "export1.jsonl", true},
	}
	for _, tt := range tests {
		if got, err := MatchPath(tt.pattern, tt.name); err != nil || got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, %v; want %v", tt.pattern, tt.name, got, err, tt.want)
		}
	}
}

// TestLocalGlob: literal names first, ** recursive, and nothing that cannot be read skipped.
func TestLocalGlob(t *testing.T) {
	dir := t.TempDir()
	touch := func(rel string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bracket, one := touch("export[1].jsonl"), touch("export1.jsonl")
	deep, top := touch("d/a/b/deep.jsonl"), touch("d/top.jsonl")
	touch("d/a/note.txt")
	ctx := context.Background()
	glob := func(p string) ([]string, error) { return LocalFS{}.Glob(ctx, p) }
	if got, err := glob(bracket); err != nil || !slices.Equal(got, []string{bracket}) {
		t.Errorf("literal name with brackets: %v, %v", got, err)
	}
	if got, err := glob(filepath.Join(dir, "export[0-9].jsonl")); err != nil || !slices.Equal(got, []string{one}) {
		t.Errorf("pattern with brackets: %v, %v", got, err)
	}
	if got, err := glob(filepath.Join(dir, "d", "**", "*.jsonl")); err != nil || !slices.Equal(got, []string{deep, top}) {
		t.Errorf("**: %v, %v; want %v", got, err, []string{deep, top})
	}
	if err := os.Symlink(filepath.Join(dir, "gone.jsonl"), filepath.Join(dir, "d", "link.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "d", "*.jsonl"), filepath.Join(dir, "d"), filepath.Join(dir, "d", "link.jsonl")} {
		if _, err := glob(p); err == nil || !strings.Contains(err.Error(), "link.jsonl") {
			t.Errorf("%s with a dangling link: %v, want an error naming it", p, err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "f"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "f", "pipe.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := glob(filepath.Join(dir, "f", "*.jsonl")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v, want an error", err)
	}
	if os.Geteuid() != 0 { // root reads any directory
		locked := filepath.Join(dir, "locked")
		touch("locked/sub/x.jsonl")
		if err := os.Chmod(filepath.Join(locked, "sub"), 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(filepath.Join(locked, "sub"), 0o755)
		if _, err := glob(filepath.Join(locked, "**", "*.jsonl")); err == nil || !strings.Contains(err.Error(), "sub") {
			t.Errorf("an unreadable directory: %v, want an error naming it", err)
		}
	}
}
