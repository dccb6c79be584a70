package integrity

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/tests/harness"
)

// TestNetworkFSRefused: a run whose checkpoint is on a FUSE mount (tests/harness/fusefs, mounted
// in a user and mount namespace; the kernel reports it as FUSE like s3fs, sshfs or virtiofs)
// fails with exit 1 naming the store, the file system and the object-storage option, and asks
// the file system for nothing but lookups, attributes and statfs: it never tries to write there.
// (NFS, EFS and SMB cannot be mounted here; checkpoints' TestNetworkFSRefused covers them with
// an injected statfs.)
func TestNetworkFSRefused(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("no FUSE here: %v", err)
	}
	root, err := harness.RepoRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fusefs, err := harness.BuildCommand(t.Context(), root, dir, "./tests/harness/fusefs")
	if err != nil {
		t.Fatal(err)
	}
	mnt := filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	input := writeFile(t, filepath.Join(dir, "in.jsonl"), line("g", "2024-03-01T09:00:00Z", "Alice", "Alice works at Kakao."))
	checkpoint := filepath.Join(mnt, "cp.db")
	job := writeFile(t, filepath.Join(dir, "job.yaml"), offlineJob("netfs", checkpoint, "path: "+input, ""))
	res := inNamespaceEnv(t, []string{"FUSEFS=" + fusefs, "MNT=" + mnt}, `exec "$FUSEFS" "$MNT" -- "$BIN" "$@"`, "run", job)
	if res.Code == 77 {
		t.Skipf("cannot mount FUSE here: %s", res.Stderr)
	}
	want(t, "run on a FUSE mount", res, 1, checkpoint, "network file system (fuse.backfilltest)", "s3://BUCKET/KEY", "local disk")
	for _, l := range strings.Split(res.Stderr, "\n") {
		op, ok := strings.CutPrefix(l, "fusefs: ")
		if ok && !strings.HasPrefix(op, "cannot") && !map[string]bool{"INIT": true, "LOOKUP": true, "GETATTR": true, "STATFS": true,
			"ACCESS": true, "FORGET": true, "BATCH_FORGET": true, "DESTROY": true}[op] {
			t.Errorf("the run asked the network file system for %s before refusing it", op)
		}
	}
}
