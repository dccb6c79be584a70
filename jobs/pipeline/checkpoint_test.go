package pipeline

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/jobs"
)

// TestCheckpointKeys: the checkpoint key is a local path or s3://BUCKET/KEY, any other URL scheme
// is an invalid job naming it; checkpoint_sync's numbers have bounds.
func TestCheckpointKeys(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		err  string
	}{
		{yaml: "checkpoint: .backfill/a.db"},
		{yaml: "checkpoint: s3://bucket/jobs/a.db\ncheckpoint_sync: {local: /tmp/a.db, seconds: 60, lease_seconds: 30}"},
		{yaml: "checkpoint: gs://bucket/a.db", err: "gs:// is not a place a checkpoint can be kept"},
		{yaml: "checkpoint: https://host/a.db", err: "https:// is not"},
		{yaml: "checkpoint: s3://bucket", err: "no object key"},
		{yaml: "checkpoint: s3://b/a.db\ncheckpoint_sync: {lease_seconds: 1}", err: "checkpoint_sync.lease_seconds: 1 is below 3"},
		{yaml: "checkpoint: s3://b/a.db\ncheckpoint_sync: {seconds: 0.1}", err: "checkpoint_sync.seconds: 0.1 is below 1"},
		{yaml: "checkpoint: s3://b/a.db\ncheckpoint_sync: {seconds: -5}", err: "checkpoint_sync.seconds"},
		{yaml: "checkpoint: s3://b/a.db\ncheckpoint_sync: {lease_seconds: 99999}", err: "checkpoint_sync.lease_seconds"},
	} {
		_, err := Parse([]byte("sources: [{path: x.jsonl}]\n"+tc.yaml+"\n"), nil, envOf(nil))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q: %v", tc.yaml, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error saying %q", tc.yaml, err, tc.err)
		}
	}
}

// TestOpenCheckpointNeverALocalURL: a checkpoint with a URL scheme other than s3:// fails before
// anything is created; never a directory named after the scheme (the "s3:" folder of old).
func TestOpenCheckpointNeverALocalURL(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	j := &Job{Job: jobs.Job{Name: "x"}}
	for _, name := range []string{"gs://bucket/a.db", "http://host/a.db", "file:///tmp/a.db", "s3://bucket"} {
		for _, write := range []bool{true, false} {
			if _, err := OpenCheckpoint(context.Background(), j, name, CheckpointOptions{Write: write}); err == nil {
				t.Errorf("OpenCheckpoint(%q, write %v) succeeded", name, write)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the refused checkpoints created %v", entries[0].Name())
	}
	_, err := OpenCheckpoint(context.Background(), j, filepath.Join(dir, "none.db"), CheckpointOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "has the job run?") {
		t.Errorf("reading a missing local store: %v, want a not-exist error asking whether the job ran", err)
	}
}

// TestDefaultLocalCopy: the local copy of an s3:// checkpoint is under the user cache, named
// from the bucket and key without ever leaving its directory.
func TestDefaultLocalCopy(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	root := filepath.Join(cache, "backfill", "checkpoints")
	seen := map[string]bool{}
	for _, loc := range []replica.Location{{Bucket: "b", Key: "demo.db"}, {Bucket: "b", Key: "a/demo.db"},
		{Bucket: "b", Key: "../../etc/passwd"}, {Bucket: "..", Key: ".."}, {Bucket: "b", Key: "x/" + strings.Repeat("k", 500)},
		{Bucket: "b", Key: "a b?*.db"}} {
		p, err := DefaultLocalCopy(loc)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || strings.HasPrefix(rel, "..") || strings.Count(rel, string(filepath.Separator)) != 1 || len(filepath.Base(p)) > 120 {
			t.Errorf("local copy of %s is %s, want a short name two levels under %s", loc, p, root)
		}
		if seen[p] {
			t.Errorf("two locations share the local copy %s", p)
		}
		seen[p] = true
	}
}
