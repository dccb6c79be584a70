package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// planted is a file of someone else's that a link in the target directory points at.
func planted(t *testing.T) (dir, victim string) {
	t.Helper()
	dir = t.TempDir()
	victim = filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

func unchanged(t *testing.T, victim string) {
	t.Helper()
	b, err := os.ReadFile(victim)
	if err != nil || string(b) != "keep me" {
		t.Fatalf("the link's target changed: %q, %v", b, err)
	}
}

func TestWriteFileReplacesLinksWithoutFollowing(t *testing.T) {
	for _, kind := range []string{"symlink", "hardlink", "dangling", "tmp-symlink"} {
		t.Run(kind, func(t *testing.T) {
			dir, victim := planted(t)
			out := filepath.Join(dir, "out.json")
			switch kind {
			case "symlink":
				must(t, os.Symlink(victim, out))
			case "hardlink":
				must(t, os.Link(victim, out))
			case "dangling":
				victim2 := filepath.Join(dir, "absent")
				must(t, os.Symlink(victim2, out))
				defer func() {
					if _, err := os.Lstat(victim2); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("a dangling link's target was created")
					}
				}()
			case "tmp-symlink": // the fixed name an older writer used
				must(t, os.Symlink(victim, out+".tmp"))
			}
			if err := WriteFile(out, []byte("new")); err != nil {
				t.Fatal(err)
			}
			unchanged(t, victim)
			st, err := os.Lstat(out)
			if err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != Mode {
				t.Fatalf("out is %v (%v), want a regular file of mode %o", st.Mode(), err, Mode)
			}
			if b, _ := os.ReadFile(out); string(b) != "new" {
				t.Fatalf("out holds %q", b)
			}
			leftovers(t, dir, kind == "tmp-symlink")
		})
	}
}

func TestWriteFailureLeavesTarget(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	must(t, os.WriteFile(out, []byte("old"), 0o644))
	boom := errors.New("boom")
	err := Write(out, func(w io.Writer) error {
		if _, err := w.Write([]byte("half")); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Fatalf("out holds %q after a failed write", b)
	}
	leftovers(t, dir, false)
}

func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(dir, []byte("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

func TestSame(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	must(t, os.WriteFile(a, []byte("x"), 0o644))
	link := filepath.Join(dir, "link")
	must(t, os.Symlink(a, link))
	sub := filepath.Join(dir, "sub")
	must(t, os.Mkdir(sub, 0o755))
	for _, b := range []string{a, link, filepath.Join(sub, "..", "a.json"), dir + "//a.json"} {
		if !Same(a, b) {
			t.Errorf("Same(%s, %s) = false", a, b)
		}
	}
	if Same(a, filepath.Join(dir, "absent")) || Same(a, sub) {
		t.Error("Same holds for another file")
	}
}

// leftovers fails when dir holds a temporary file of a write (other than a planted one).
func leftovers(t *testing.T, dir string, plantedTmp bool) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	n := 1
	if plantedTmp {
		n = 2
	}
	if len(ents) != n {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("the directory holds %v", names)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
