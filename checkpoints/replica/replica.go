package replica

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
)

// DefaultEvery is a writer's snapshot period when Options.Every is 0.
const DefaultEvery = 5 * time.Minute

// finalTimeout bounds the snapshot Close uploads (and the lease release after it).
const finalTimeout = 30 * time.Minute

// metaKey is the local copy's meta key holding the id of the last snapshot taken of it (or
// restored into it) and the location it was taken for, "ID s3://BUCKET/KEY": the copy continues
// that snapshot while the bucket still has it.
const metaKey = "replica.snapshot"

// opened, when set (by tests), is told of every writer Open returns.
var opened func(*checkpoints.Store, *replica)

// ErrNoSnapshot is the error of OpenReadOnly when the bucket has no snapshot at the location;
// it is an fs.ErrNotExist.
var ErrNoSnapshot error = noSnapshotError{}

type noSnapshotError struct{}

func (noSnapshotError) Error() string        { return "no snapshot in the bucket" }
func (noSnapshotError) Is(target error) bool { return target == fs.ErrNotExist }

// Options configure Open and OpenReadOnly.
type Options struct {
	Client   ObjectStore
	Location Location
	Local    string        // the local copy a writer works on (Open)
	Every    time.Duration // a writer's snapshot period (DefaultEvery when 0)
	LeaseTTL time.Duration // how long the lease holds unrenewed (DefaultLeaseTTL when 0)
	// Stop, when closed (the run's first SIGINT/SIGTERM), makes a writer take a snapshot at once.
	Stop <-chan struct{}
	// OnLost is called once when the writer lost the bucket to another process (ErrLost): the
	// caller stops writing; nothing more is uploaded.
	OnLost func(error)
	Log    *slog.Logger
	// Existing makes Open fail with ErrNoSnapshot, instead of starting a new store, when the
	// bucket has no snapshot at the location and there is no local copy.
	Existing bool
}

func (o *Options) defaults() {
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = DefaultLeaseTTL
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
}

// replica is a writer's local copy kept in the bucket.
type replica struct {
	o     Options
	store *checkpoints.Store
	lease *lease
	host  string

	mu        sync.Mutex   // one snapshot at a time
	head      snapshotInfo // the bucket's snapshot (ETag "" when there is none)
	last      int64        // the store's Version that head holds; -1 when not known to be in the bucket
	sent      int          // snapshots uploaded
	sentBytes int64

	lostMu sync.Mutex
	lost   error

	trigger chan struct{} // a stage ended: snapshot soon
	quit    chan struct{}
	wg      sync.WaitGroup
}

// Open opens the checkpoint store kept at o.Location for writing. It takes the location's lease
// (a second writer fails at once with a *checkpoints.LockedError naming the holder), restores
// the bucket's snapshot into o.Local unless the local copy already continues it, opens the
// local copy with checkpoints.Open, and from then on uploads a snapshot of it whenever it
// changed: at each stage boundary (Checkpoint), every o.Every, at once when o.Stop closes,
// before a provider batch is created (UpdateBatch) and when the store closes; Close then
// releases the lease. Each upload is conditional on the bucket's snapshot being the one this
// process last saw, so a process that lost its lease never overwrites its successor's work.
func Open(ctx context.Context, o Options) (*checkpoints.Store, error) {
	o.defaults()
	l, err := acquireLease(ctx, o.Client, o.Location, o.LeaseTTL, o.Local, o.Log)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	r := &replica{o: o, lease: l, host: host, last: -1, trigger: make(chan struct{}, 1), quit: make(chan struct{})}
	r.wg.Add(1)
	go r.renewLoop(context.WithoutCancel(ctx)) // from now on: a restore may outlast the lease's TTL
	if r.store, err = r.openLocal(ctx); err != nil {
		close(r.quit)
		r.wg.Wait()
		if rerr := l.release(context.WithoutCancel(ctx)); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return nil, err
	}
	r.store.SetHooks(checkpoints.Hooks{Checkpointed: r.stageEnded, Barrier: r.barrier, Closing: r.closing, Closed: r.closed})
	r.wg.Add(1)
	go r.syncLoop(context.WithoutCancel(ctx))
	if opened != nil {
		opened(r.store, r)
	}
	return r.store, nil
}

// openLocal opens the local copy, first restoring the bucket's snapshot into it when the copy
// is missing, damaged, or does not continue that snapshot.
func (r *replica) openLocal(ctx context.Context) (*checkpoints.Store, error) {
	loc, local := r.o.Location, r.o.Local
	head, inBucket, err := headSnapshot(ctx, r.o.Client, loc)
	if err != nil {
		return nil, err
	}
	r.head = head
	removeStale(local)
	if _, err := os.Stat(local); errors.Is(err, fs.ErrNotExist) {
		if !inBucket {
			if r.o.Existing { // (this process holds the lease: no other run is writing it)
				return nil, fmt.Errorf("reading checkpoint %s: %w (has the job run?)", loc, ErrNoSnapshot)
			}
			r.o.Log.Info("new checkpoint store: its first snapshot goes to the bucket at the first stage boundary", "store", loc.String(), "local", local)
			return checkpoints.Open(ctx, local)
		}
		return r.restore(ctx, "the local copy is missing")
	}
	s, err := checkpoints.Open(ctx, local)
	switch {
	case err != nil && inBucket && checkpoints.Damaged(err):
		r.o.Log.Warn("the local copy cannot be opened: restoring the bucket's snapshot over it", "local", local, "err", err)
		return r.restore(ctx, "the local copy cannot be opened")
	case err != nil:
		return nil, err
	}
	v, _, err := s.Meta(ctx, metaKey)
	id, of, _ := strings.Cut(v, " ")
	switch {
	case err != nil:
		s.Close()
		return nil, err
	case id != "" && of != loc.String():
		s.Close()
		return nil, fmt.Errorf("local copy %s of checkpoint %s is the local copy of checkpoint %s: set checkpoint_sync.local to "+
			"another path (one local copy per checkpoint)", local, loc, of)
	case !inBucket:
		r.o.Log.Info("the bucket has no snapshot yet: the local copy's goes there at the first stage boundary", "store", loc.String(), "local", local)
		return s, nil
	case id == head.ID:
		r.o.Log.Info("the local copy continues the bucket's snapshot", "store", loc.String(), "local", local, "seq", head.Seq)
		return s, nil
	case id == "":
		s.Close()
		return nil, fmt.Errorf("local copy %s of checkpoint %s is a checkpoint store that was never a copy of the bucket's: "+
			"move it away (or set checkpoint_sync.local to another path), and the bucket's snapshot is restored", local, loc)
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	return r.restore(ctx, "the local copy is older than the bucket's snapshot (or another process's)")
}

// restore downloads the bucket's snapshot (r.head) over the local copy and opens it.
func (r *replica) restore(ctx context.Context, why string) (*checkpoints.Store, error) {
	start := time.Now()
	local := r.o.Local
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		return nil, fmt.Errorf("creating the directory of %s: %w", local, err)
	}
	tmp := local + ".restore-" + newID()
	if err := download(ctx, r.o.Client, r.o.Location, r.head, tmp); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := checkpoints.Replace(local, tmp); err != nil {
		os.Remove(tmp)
		return nil, err
	}
	s, err := checkpoints.Open(ctx, local)
	if err != nil {
		return nil, err
	}
	if r.last, err = s.Version(ctx); err != nil {
		s.Close()
		return nil, err
	}
	r.o.Log.Info("checkpoint restored from the bucket", "store", r.o.Location.String(), "local", local, "why", why, "seq", r.head.Seq,
		"taken", r.head.Taken.Format(time.RFC3339), "by", r.head.Host, "bytes", r.head.Size, "downloaded", r.head.Bytes,
		"seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	return s, nil
}

// removeStale removes the snapshot and restore files a killed process left beside the local
// copy (their names carry a random part after the copy's name).
func removeStale(local string) {
	for _, pattern := range []string{".snapshot-*", ".restore-*"} {
		stale, _ := filepath.Glob(escapeGlob(local) + pattern)
		for _, f := range stale {
			os.Remove(f)
		}
	}
}

// escapeGlob escapes the glob metacharacters of a path.
func escapeGlob(p string) string {
	out := make([]rune, 0, len(p))
	for _, c := range p {
		switch c {
		case '*', '?', '[', '\\':
			out = append(out, '\\')
		}
		out = append(out, c)
	}
	return string(out)
}

// Sync uploads a snapshot of the local copy if it changed since the last one.
func (r *replica) sync(ctx context.Context, reason string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.lostErr(); err != nil {
		return err
	}
	v, err := r.store.Version(ctx)
	if err != nil || v == r.last {
		return err
	}
	start := time.Now()
	info := snapshotInfo{ID: newID(), Seq: r.head.Seq + 1, Taken: start.UTC(), Host: r.host}
	if err := r.store.SetMeta(ctx, metaKey, info.ID+" "+r.o.Location.String()); err != nil {
		return err
	}
	if v, err = r.store.Version(ctx); err != nil { // the snapshot holds at least this
		return err
	}
	tmp := r.o.Local + ".snapshot-" + info.ID
	defer os.Remove(tmp)
	if err := r.store.Snapshot(ctx, tmp); err != nil {
		return err
	}
	info, err = upload(ctx, r.o.Client, r.o.Location, tmp, info, r.head.ETag)
	if errors.Is(err, ErrLost) {
		r.lose(err)
	}
	if err != nil {
		return err
	}
	r.head, r.last = info, v
	r.sent++
	r.sentBytes += info.Bytes
	r.o.Log.Info("checkpoint snapshot uploaded", "store", r.o.Location.String(), "seq", info.Seq, "reason", reason, "bytes", info.Size,
		"uploaded", info.Bytes, "seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	return nil
}

// stageEnded asks the sync loop for a snapshot (the Checkpointed hook: the run goes on).
func (r *replica) stageEnded(context.Context) {
	select {
	case r.trigger <- struct{}{}:
	default:
	}
}

// barrier uploads a snapshot before the caller goes on (the Barrier hook).
func (r *replica) barrier(ctx context.Context) error { return r.sync(ctx, "batch") }

// syncLoop takes the periodic, stage-boundary and interrupt snapshots until quit closes.
func (r *replica) syncLoop(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(r.o.Every)
	defer t.Stop()
	stop := r.o.Stop
	for {
		reason := ""
		select {
		case <-r.quit:
			return
		case <-t.C:
			reason = "periodic"
		case <-r.trigger:
			reason = "stage"
		case <-stop:
			stop, reason = nil, "interrupt"
		}
		if err := r.sync(ctx, reason); err != nil && !errors.Is(err, ErrLost) {
			r.o.Log.Warn("checkpoint snapshot failed: the next one tries again", "store", r.o.Location.String(), "reason", reason, "err", err)
		}
	}
}

// renewLoop renews the lease until quit closes or it is lost.
func (r *replica) renewLoop(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(renewEvery(r.o.LeaseTTL))
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-t.C:
			if err := r.lease.renew(ctx); err != nil {
				r.lose(err)
				return
			}
		}
	}
}

// lose records that the bucket was lost to another process and tells the owner, once.
func (r *replica) lose(err error) {
	r.lostMu.Lock()
	first := r.lost == nil
	if first {
		r.lost = err
	}
	r.lostMu.Unlock()
	if first {
		r.o.Log.Error("checkpoint lost to another process: this run stops; its work since the last snapshot stays in the local copy only",
			"store", r.o.Location.String(), "local", r.o.Local, "err", err)
		if r.o.OnLost != nil {
			r.o.OnLost(err)
		}
	}
}

func (r *replica) lostErr() error {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	return r.lost
}

// closing stops the loops and uploads the last snapshot (the Closing hook).
func (r *replica) closing() error {
	close(r.quit)
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), finalTimeout)
	defer cancel()
	err := r.sync(ctx, "close")
	if err == nil {
		r.o.Log.Info("checkpoint kept in the bucket", "store", r.o.Location.String(), "seq", r.head.Seq, "snapshots", r.sent, "uploaded", r.sentBytes)
	} else {
		err = fmt.Errorf("keeping checkpoint %s: %w (the local copy %s holds the work: run again on this machine to upload it)", r.o.Location, err, r.o.Local)
	}
	return err
}

// closed releases the lease (the Closed hook).
func (r *replica) closed() error {
	if r.lostErr() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), finalTimeout)
	defer cancel()
	return r.lease.release(ctx)
}

// OpenReadOnly downloads the bucket's latest snapshot at o.Location into a temporary directory
// and opens it with checkpoints.OpenReadOnly, taking no lease (a run may hold it): the store is
// as of that snapshot. Closing the store removes the download. A location with no snapshot is
// ErrNoSnapshot.
func OpenReadOnly(ctx context.Context, o Options) (*checkpoints.Store, error) {
	o.defaults()
	for attempt := 0; ; attempt++ {
		head, ok, err := headSnapshot(ctx, o.Client, o.Location)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, noSnapshot(ctx, o)
		}
		dir, err := os.MkdirTemp("", "backfill-snapshot-")
		if err != nil {
			return nil, fmt.Errorf("reading checkpoint %s: %w", o.Location, err)
		}
		name := path.Base(o.Location.Key)
		if name == "." || name == ".." || name == "/" {
			name = "checkpoint.db"
		}
		file := filepath.Join(dir, name)
		err = download(ctx, o.Client, o.Location, head, file)
		if conflicted(err) && attempt < 2 { // a new snapshot arrived between the HEAD and the GET
			os.RemoveAll(dir)
			continue
		}
		var s *checkpoints.Store
		if err == nil {
			s, err = checkpoints.OpenReadOnly(ctx, file)
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		s.SetHooks(checkpoints.Hooks{Closed: func() error { return os.RemoveAll(dir) }})
		o.Log.Info("reading the bucket's latest checkpoint snapshot", "store", o.Location.String(), "seq", head.Seq,
			"taken", head.Taken.Format(time.RFC3339), "by", head.Host)
		return s, nil
	}
}

// noSnapshot is the error of a location without a snapshot, saying whether a run holds it.
func noSnapshot(ctx context.Context, o Options) error {
	hint := "has the job run?"
	if cur, err := readLease(ctx, o.Client, o.Location); err == nil && !cur.body.Released &&
		cur.age < time.Duration(cur.body.TTL*float64(time.Second)) {
		hint = fmt.Sprintf("a run of pid %d on host %s holds it since %s and uploads its first snapshot at its first stage boundary",
			cur.body.PID, cur.body.Host, cur.body.Since.Format(time.RFC3339))
	}
	return fmt.Errorf("reading checkpoint %s: %w (%s)", o.Location, ErrNoSnapshot, hint)
}
