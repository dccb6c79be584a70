package runner

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/checkpoints/replica"
	"github.com/tkgraph/backfill/stages/ingest"
)

// newStore is a local checkpoint store that did not exist before the run: the run creates it,
// and its directory when dir is set.
type newStore struct {
	path, dir string
}

// newLocalStore returns the local checkpoint store name when it does not exist yet (nil
// otherwise, and for a store kept in object storage).
func newLocalStore(name string) *newStore {
	if _, remote, err := replica.Parse(name); err != nil || remote {
		return nil
	}
	if _, err := os.Lstat(name); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	n := &newStore{path: name}
	if _, err := os.Lstat(filepath.Dir(name)); errors.Is(err, fs.ErrNotExist) {
		n.dir = filepath.Dir(name)
	}
	return n
}

// holdsNothing reports whether the store holds no episode and no quarantined row: a run that
// created it staged nothing. An error counts as holding something (the store stays).
func holdsNothing(ctx context.Context, store *checkpoints.Store) bool {
	c, err := store.Count(ctx)
	return err == nil && c.Episodes == 0 && c.Quarantined == 0
}

// remove removes a store a failed run created and left empty (holdsNothing), with SQLite's
// files beside it, its lock file, the run's side files (quarantine and failed units) and the
// directory the run created for it when nothing else is in it, so that `status` does not report
// a store of 0 episodes that no run built. What it cannot remove is logged.
func (n *newStore) remove(log *slog.Logger) {
	p := n.path
	for _, name := range []string{p, p + "-wal", p + "-shm", p + "-journal", p + ".lock", ingest.QuarantineFile(p), FailedFile(p)} {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			log.Warn("the failed run created a store it left empty, which could not be removed", "file", name, "err", err)
		}
	}
	if n.dir != "" {
		_ = os.Remove(n.dir) // only when empty: whatever else is there stays
	}
}
