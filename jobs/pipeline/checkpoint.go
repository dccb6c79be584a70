package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/internal/options"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/loaders/s3"
)

// declareCheckpoint declares the checkpoint key, which OpenCheckpoint reads: by default the
// job's name under .backfill; a URL scheme other than s3:// is an error (replica.Parse), never a
// local path.
func (j *Job) declareCheckpoint(root *options.Section) {
	root.String(&j.Checkpoint, "checkpoint", "checkpoint store path, any legal file name, on a local disk (a network file "+
		"system is refused), or `s3://BUCKET/KEY` ([Checkpoints in object storage](docs/scale-out.md#checkpoints-in-object-storage)); "+
		"another URL scheme (`gs://`, `http://`, `file://`, …) is an error. The rows the last run rejected also go to "+
		"`<checkpoint>.quarantine.jsonl` (row 0: the file as a whole; beside the local copy of an `s3://` store); a run "+
		"locks `<checkpoint>.lock`", options.DefaultText("`.backfill/<name>.db`"))
	root.Defaults(func() {
		if j.Checkpoint == "" {
			j.Checkpoint = filepath.Join(".backfill", j.Name+".db")
		}
	})
	root.Check(func() error {
		_, _, err := replica.Parse(j.Checkpoint)
		return err
	})
}

// CheckpointOptions say how OpenCheckpoint opens a checkpoint store.
type CheckpointOptions struct {
	Write bool // for writing (a run): the store's lock, or the lease of one kept in object storage
	// Existing makes a writer's store that does not exist yet (no local file; no snapshot in
	// the bucket and no local copy) an error wrapping fs.ErrNotExist instead of a new store.
	Existing bool
	// Stop, when closed, makes a writer kept in object storage take a snapshot at once (the
	// run's first SIGINT/SIGTERM).
	Stop <-chan struct{}
	// OnLost is called when a writer kept in object storage lost it to another process
	// (replica.ErrLost): the caller stops.
	OnLost func(error)
	Log    *slog.Logger // default slog.Default()
}

// OpenCheckpoint opens the checkpoint store that name (the job's checkpoint, or an override of
// it) names, for every command: a local path with checkpoints.Open (writing) or
// checkpoints.OpenReadOnly; s3://BUCKET/KEY with package replica (a writer works on a local
// copy, checkpoint_sync.local or DefaultLocalCopy, kept in the bucket; a reader reads the
// latest snapshot), with the job's s3 client settings. Any other URL scheme is an error, never
// a local path. A reader's store that does not exist is an error wrapping fs.ErrNotExist.
func OpenCheckpoint(ctx context.Context, j *Job, name string, o CheckpointOptions) (*checkpoints.Store, error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	loc, remote, err := replica.Parse(name)
	if err != nil {
		return nil, err
	}
	if !remote {
		if o.Write && !o.Existing {
			return checkpoints.Open(ctx, name)
		}
		if _, err := os.Stat(name); err != nil {
			return nil, fmt.Errorf("reading checkpoint %s: %w (has the job run?)", name, loaders.WithoutPath(err))
		}
		if o.Write {
			return checkpoints.Open(ctx, name)
		}
		return checkpoints.OpenReadOnly(ctx, name)
	}
	store, err := openRemote(ctx, j, loc, o)
	return store, s3.Explain(err, loc.Bucket, j.S3.Endpoint)
}

// openRemote opens the checkpoint store kept at loc (OpenCheckpoint).
func openRemote(ctx context.Context, j *Job, loc replica.Location, o CheckpointOptions) (*checkpoints.Store, error) {
	client, err := s3.NewClient(ctx, j.S3)
	if err != nil {
		return nil, fmt.Errorf("opening checkpoint %s: %w", loc, err)
	}
	ro := j.CheckpointSync.Options()
	ro.Client, ro.Location, ro.Stop, ro.OnLost, ro.Log, ro.Existing = client, loc, o.Stop, o.OnLost, o.Log, o.Existing
	if !o.Write {
		return replica.OpenReadOnly(ctx, ro)
	}
	if ro.Local == "" {
		if ro.Local, err = DefaultLocalCopy(loc); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(ro.Local), 0o700); err != nil { // it holds prompts and answers: the user's only
			return nil, fmt.Errorf("creating the directory of the local copy %s: %w", ro.Local, err)
		}
	}
	return replica.Open(ctx, ro)
}

// SideFiles is the path the files kept beside a checkpoint store are named after (its
// quarantine, failed-units and output-record files, and the default timeline pages): the
// store's own path for a local store; for one kept at s3://BUCKET/KEY the writer's local copy
// (checkpoint_sync.local, else DefaultLocalCopy), so every command on this machine finds the
// same files whichever of them opened the store.
func (j *Job) SideFiles(name string) (string, error) {
	loc, remote, err := replica.Parse(name)
	if err != nil || !remote {
		return name, err
	}
	if j.CheckpointSync.Local != "" {
		return j.CheckpointSync.Local, nil
	}
	return DefaultLocalCopy(loc)
}

// DefaultLocalCopy is the local copy of a checkpoint kept at loc when checkpoint_sync.local is
// not set: <user cache>/backfill/checkpoints/<bucket>/<16 hex digits of the key's SHA-256>-<the
// key's last element>, the user cache being $XDG_CACHE_HOME or ~/.cache (os.UserCacheDir).
func DefaultLocalCopy(loc replica.Location) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding a place for the local copy of checkpoint %s: %w (set checkpoint_sync.local)", loc, err)
	}
	sum := sha256.Sum256([]byte(loc.Key))
	return filepath.Join(dir, "backfill", "checkpoints", fileName(loc.Bucket, 63),
		hex.EncodeToString(sum[:8])+"-"+fileName(path.Base(loc.Key), 100)), nil
}

// fileName makes s a safe file name of at most limit bytes: characters other than letters,
// digits, '.', '-' and '_' become '_', and a name of dots only gets a leading '_'.
func fileName(s string, limit int) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	s = string(b[:min(len(b), limit)])
	if strings.Trim(s, ".") == "" {
		s = "_" + s
	}
	return s
}
