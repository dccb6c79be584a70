package checkpoints

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetworkFSRefused: a store whose directory a statfs reports on a network file system is
// refused before anything is written there, naming the file system and the options that work;
// readers still open a store there, and a local file system is accepted.
func TestNetworkFSRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, k := range []fsKind{{Name: "nfs", Network: true}, {Name: "cifs", Network: true}, {Name: "fuse.sshfs", Network: true},
		{Name: "9p", Network: true}} {
		t.Run(k.Name, func(t *testing.T) {
			old := statFS
			statFS = func(got string) (fsKind, error) {
				if got != dir {
					t.Errorf("statfs of %s, want the store's directory %s", got, dir)
				}
				return k, nil
			}
			t.Cleanup(func() { statFS = old })
			fresh := filepath.Join(dir, k.Name+".db")
			_, err := Open(ctx, fresh)
			var se *StoreError
			if !errors.As(err, &se) || !errors.Is(err, errNetworkFS) {
				t.Fatalf("Open = %v, want a StoreError for a network file system", err)
			}
			for _, want := range []string{fresh, "network file system (" + k.Name + ")", "s3://BUCKET/KEY", "local disk"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
			for _, f := range []string{fresh, fresh + ".lock"} {
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s was created", f)
				}
			}
			r, err := OpenReadOnly(ctx, path)
			if err != nil {
				t.Fatalf("OpenReadOnly on %s: %v", k.Name, err)
			}
			r.Close()
		})
	}
}

// TestFileSystemOfLocal: the real statfs of a temporary directory is not a network one here
// (tests/integrity mounts a real FUSE file system and checks the refusal through the binary).
func TestFileSystemOfLocal(t *testing.T) {
	k, err := fileSystemOf(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if k.Network {
		t.Skipf("the temporary directory is on a network file system (%s)", k.Name)
	}
}
