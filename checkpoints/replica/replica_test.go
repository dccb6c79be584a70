package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/llm/batchrec"
	"github.com/tkgraph/backfill/llm/cache"
	"github.com/tkgraph/backfill/llm/wire"
)

// fixture is a bucket on the test gateway and a directory for local copies.
type fixture struct {
	client *s3.Client
	loc    Location
	dir    string
	log    *logBuffer
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	env := testenv.S3(t)
	bucket := testenv.NewBucket(t, env, nil)
	return &fixture{client: env.Client(), loc: Location{Bucket: bucket, Key: "jobs/demo.db"}, dir: t.TempDir(), log: &logBuffer{}}
}

// options are writer options with a local copy named local in the fixture's directory.
func (f *fixture) options(local string) Options {
	return Options{Client: f.client, Location: f.loc, Local: filepath.Join(f.dir, local), Every: time.Hour, LeaseTTL: MinLeaseTTL,
		Log: slog.New(slog.NewTextHandler(f.log, nil))}
}

// logBuffer collects log lines safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), substr)
}

var ref = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

// addEpisodes stages n episodes named prefix0… into s.
func addEpisodes(t *testing.T, s *checkpoints.Store, prefix string, n int) {
	t.Helper()
	var eps []graph.Episode
	for i := range n {
		eps = append(eps, graph.Episode{UUID: fmt.Sprintf("%s%03d", prefix, i), GroupID: "g", ReferenceTime: ref.Add(time.Duration(i) * time.Minute),
			Seq: int64(i), Name: "e", Source: graph.SourceMessage, Content: "Alice works at Kakao."})
	}
	if _, err := s.UpsertEpisodes(context.Background(), eps, ref); err != nil {
		t.Fatal(err)
	}
}

func countEpisodes(t *testing.T, s *checkpoints.Store) int {
	t.Helper()
	n, err := s.CountEpisodes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRoundTrip: a writer's store goes to the bucket when it closes; a reader sees it without a
// lease; a writer on a new machine (no local copy) restores it; a machine whose local copy is
// older than the bucket's snapshot gets it replaced; a local copy that continues the bucket's
// snapshot is kept with its later work.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, err := Open(ctx, f.options("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 5)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(ctx, f.options(""))
	if err != nil {
		t.Fatal(err)
	}
	if n := countEpisodes(t, r); n != 5 {
		t.Errorf("the reader sees %d episodes, want 5", n)
	}
	tmp := filepath.Dir(r.Path())
	r.Close()
	if _, err := os.Stat(tmp); err == nil {
		t.Errorf("the reader's download %s stayed after Close", tmp)
	}

	b, err := Open(ctx, f.options("b.db")) // another machine: restores
	if err != nil {
		t.Fatal(err)
	}
	if n := countEpisodes(t, b); n != 5 {
		t.Fatalf("the restored copy has %d episodes, want 5", n)
	}
	addEpisodes(t, b, "b", 3)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	a, err = Open(ctx, f.options("a.db")) // a's copy is older than b's snapshot: replaced
	if err != nil {
		t.Fatal(err)
	}
	if n := countEpisodes(t, a); n != 8 {
		t.Errorf("a's copy has %d episodes after reopening, want the bucket's 8", n)
	}
	a.Close()

	b, err = Open(ctx, f.options("b.db")) // b's copy is a's last snapshot plus nothing: kept
	if err != nil {
		t.Fatal(err)
	}
	if n := countEpisodes(t, b); n != 8 {
		t.Errorf("b's copy has %d episodes, want 8", n)
	}
	b.Close()
	if n := f.log.count("checkpoint restored from the bucket"); n != 2 {
		t.Errorf("%d restores, want 2 (b's first open and a's reopening)\n%s", n, f.log.b.String())
	}
}

// TestKeptWhenContinuing: a local copy whose last snapshot is still the bucket's holds work the
// bucket does not have yet (a killed process's): it is kept and uploaded, never replaced.
func TestKeptWhenContinuing(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	o := f.options("a.db")
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 2)
	if err := syncOf(t, a); err != nil { // as at a stage boundary
		t.Fatal(err)
	}
	addEpisodes(t, a, "later", 4) // committed locally only
	// The process dies: no Close. Its lease stays until it expires.
	abandon(t, a)
	time.Sleep(o.LeaseTTL + time.Second)
	a, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := countEpisodes(t, a); n != 6 {
		t.Errorf("the continuing copy has %d episodes, want 6 (2 in the bucket + 4 local)", n)
	}
	a.Close()
	if f.log.count("checkpoint restored") != 0 {
		t.Error("a copy that continues the bucket's snapshot was replaced")
	}
}

// replicas are the writers Open returned, by store.
var replicas = map[*checkpoints.Store]*replica{}

func init() {
	var mu sync.Mutex
	opened = func(s *checkpoints.Store, r *replica) {
		mu.Lock()
		defer mu.Unlock()
		replicas[s] = r
	}
}

// syncOf takes a snapshot of a replicated store now (what a stage boundary asks for).
func syncOf(t *testing.T, s *checkpoints.Store) error {
	t.Helper()
	return replicas[s].sync(context.Background(), "test")
}

// abandon stops a store's background work and its local lock as a killed process would: the
// lease is neither renewed nor released, nothing more is uploaded.
func abandon(t *testing.T, s *checkpoints.Store) {
	t.Helper()
	r := replicas[s]
	s.SetHooks(checkpoints.Hooks{})
	close(r.quit)
	r.wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSecondWriter: a second writer fails at once naming the holder while the first renews its
// lease; a reader works beside it; after the first closes, the next writer takes the lease at
// once; a lease whose holder died looks alive until it misses two renewals, then is waited for
// until it expires and taken over.
func TestSecondWriter(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, err := Open(ctx, f.options("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * renewEvery(MinLeaseTTL)) // renewed at least once
	start := time.Now()
	_, err = Open(ctx, f.options("b.db"))
	var le *checkpoints.LockedError
	host, _ := os.Hostname()
	if !errors.As(err, &le) || le.PID != os.Getpid() || le.Host != host || le.Since == "" ||
		!strings.Contains(err.Error(), f.loc.String()) || !strings.Contains(err.Error(), f.loc.Lease()) {
		t.Fatalf("second Open = %v, want a LockedError naming this process, the store and its lease", err)
	}
	if d := time.Since(start); d > MinLeaseTTL {
		t.Errorf("the second writer took %v to fail: it must fail at once", d)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "b.db")); err == nil {
		t.Error("the refused writer created its local copy")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	ob := f.options("b.db")
	ob.LeaseTTL = 8 * time.Second // S3 dates writes to the second: room for the stale but unexpired window
	b, err := Open(ctx, ob)
	if err != nil {
		t.Fatalf("Open after the holder closed: %v", err)
	}
	if d := time.Since(start); d > MinLeaseTTL {
		t.Errorf("taking a released lease took %v", d)
	}
	abandon(t, b) // dies holding the lease
	if _, err := Open(ctx, f.options("c.db")); !errors.As(err, &le) {
		t.Fatalf("Open right after the holder died = %v, want a LockedError (its lease looks alive)", err)
	}
	time.Sleep(6 * time.Second) // stale (5 s) but not expired (8 s), give or take the servers' second
	start = time.Now()
	c, err := Open(ctx, f.options("c.db"))
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	c.Close()
	waited := time.Since(start)
	if f.log.count("waiting for it to expire") != 1 || f.log.count("took over an expired checkpoint lease") != 1 {
		t.Errorf("the dead holder's lease was not waited for and taken over as expired\n%s", f.log.b.String())
	}
	t.Logf("a dead holder's lease (TTL %v) was taken over after waiting %v", ob.LeaseTTL, waited.Round(time.Millisecond))
}

// TestLost: a writer whose lease another process took over stops (OnLost) and never uploads
// over the other's snapshot; its Close says so.
func TestLost(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	o := f.options("a.db")
	lost := make(chan error, 1)
	o.OnLost = func(err error) { lost <- err }
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 2)
	if err := syncOf(t, a); err != nil {
		t.Fatal(err)
	}
	// Another process overwrites the lease and the snapshot (as one that took over after a
	// partition longer than the TTL would).
	put(t, f, f.loc.Key+LeaseSuffix, []byte(`{"owner":"other","host":"elsewhere","pid":7,"ttl_seconds":60}`))
	select {
	case err := <-lost:
		if !errors.Is(err, ErrLost) {
			t.Errorf("OnLost(%v), want ErrLost", err)
		}
	case <-time.After(4 * MinLeaseTTL):
		t.Fatal("the writer did not notice its lease was taken over")
	}
	addEpisodes(t, a, "after", 1)
	err = a.Close()
	if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), o.Local) {
		t.Errorf("Close = %v, want ErrLost naming the local copy", err)
	}
	if b := get(t, f, f.loc.Key+LeaseSuffix); !bytes.Contains(b, []byte("elsewhere")) {
		t.Errorf("the lost writer released the other's lease: %s", b)
	}
}

// TestFencedSnapshot: a snapshot uploaded by another process since this one's last is never
// overwritten: the upload fails with ErrLost.
func TestFencedSnapshot(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, err := Open(ctx, f.options("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 2)
	if err := syncOf(t, a); err != nil {
		t.Fatal(err)
	}
	other := []byte("another process's snapshot")
	put(t, f, f.loc.Key, other)
	addEpisodes(t, a, "b", 1)
	if err := syncOf(t, a); !errors.Is(err, ErrLost) {
		t.Errorf("sync over another's snapshot = %v, want ErrLost", err)
	}
	a.Close()
	if b := get(t, f, f.loc.Key); !bytes.Equal(b, other) {
		t.Error("the other process's snapshot was overwritten")
	}
}

// TestBarrierAndStop: a batch recorded as submitting with its input file is in the bucket when
// UpdateBatch returns; closing Stop uploads a snapshot at once.
func TestBarrierAndStop(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	o := f.options("a.db")
	stop := make(chan struct{})
	o.Stop = stop
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b := batchrec.Record{ID: "b1", Kind: batchrec.KindChat, Endpoint: wire.EndpointChat, State: batchrec.Queued, CreatedAt: ref, UpdatedAt: ref}
	if err := a.AddBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.State, b.InputFile = batchrec.Submitting, "file-1"
	if err := a.UpdateBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := r.BatchRecord(ctx, "b1")
	r.Close()
	if err != nil || !ok || got.State != batchrec.Submitting || got.InputFile != "file-1" {
		t.Errorf("the bucket's snapshot holds batch %+v (%v, %v), want it submitting with its input file", got, ok, err)
	}

	addEpisodes(t, a, "a", 1)
	before := f.log.count("reason=interrupt")
	close(stop)
	deadline := time.Now().Add(30 * time.Second)
	for f.log.count("reason=interrupt") == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if f.log.count("reason=interrupt") == before {
		t.Fatalf("no snapshot after Stop closed\n%s", f.log.b.String())
	}
}

// TestNeverACopy: a local store that was never a copy of the bucket's is not replaced.
func TestNeverACopy(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, err := Open(ctx, f.options("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	mine := filepath.Join(f.dir, "mine.db")
	s, err := checkpoints.Open(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, s, "m", 3)
	s.Close()
	_, err = Open(ctx, f.options("mine.db"))
	if err == nil || !strings.Contains(err.Error(), "never a copy") || !strings.Contains(err.Error(), mine) {
		t.Fatalf("Open over a store that was never a copy = %v", err)
	}
	s, err = checkpoints.OpenReadOnly(ctx, mine)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := countEpisodes(t, s); n != 3 {
		t.Errorf("the user's store has %d episodes, want its 3", n)
	}
	// and the refused Open released the lease
	b, err := Open(ctx, f.options("b.db"))
	if err != nil {
		t.Fatalf("Open after a refused one: %v", err)
	}
	b.Close()
}

// TestMultipart: a snapshot larger than a part goes up in parts, on the same condition.
func TestMultipart(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	old := partSize
	partSize = 5 << 20 // S3's smallest part
	t.Cleanup(func() { partSize = old })
	a, err := Open(ctx, f.options("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 { // 12 MiB that do not compress
		blob := make([]byte, 1<<20)
		_, _ = rand.Read(blob)
		if err := a.Put(ctx, fmt.Sprintf("k%d", i), cache.Entry{Namespace: "x", Response: blob}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	info, ok, err := headSnapshot(ctx, f.client, f.loc)
	if err != nil || !ok || info.Bytes <= partSize {
		t.Fatalf("snapshot %+v (%v %v), want one larger than a part", info, ok, err)
	}
	b, err := Open(ctx, f.options("b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e, ok, err := b.Get(ctx, "k11")
	if err != nil || !ok || len(e.Response) != 1<<20 {
		t.Errorf("the restored copy lacks the last blob (%v %v)", ok, err)
	}
}

func put(t *testing.T, f *fixture, key string, body []byte) {
	t.Helper()
	if _, err := f.client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: &f.loc.Bucket, Key: aws.String(key),
		Body: bytes.NewReader(body), ContentLength: aws.Int64(int64(len(body)))}); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, f *fixture, key string) []byte {
	t.Helper()
	out, err := f.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: &f.loc.Bucket, Key: aws.String(key)})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLocalCopyOfAnother: a local copy is one location's: another location's run on it fails
// naming both, and leaves it as it was.
func TestLocalCopyOfAnother(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	a, err := Open(ctx, f.options("shared.db"))
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 2)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	o := f.options("shared.db")
	o.Location.Key = "jobs/other.db"
	_, err = Open(ctx, o)
	if err == nil || !strings.Contains(err.Error(), f.loc.String()) || !strings.Contains(err.Error(), o.Location.String()) {
		t.Fatalf("Open of another location on the same local copy = %v, want an error naming both", err)
	}
	s, err := checkpoints.OpenReadOnly(ctx, o.Local)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := countEpisodes(t, s); n != 2 {
		t.Errorf("the local copy has %d episodes, want its 2", n)
	}
}

// TestDamagedLocalCopy: a local copy damaged on disk is replaced by the bucket's snapshot.
func TestDamagedLocalCopy(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	o := f.options("a.db")
	a, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	addEpisodes(t, a, "a", 3)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(o.Local, bytes.Repeat([]byte("not a database anymore\n"), 500), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if n := countEpisodes(t, a); n != 3 || f.log.count("restoring the bucket's snapshot over it") != 1 {
		t.Errorf("after restoring the damaged copy: %d episodes (want 3)\n%s", n, f.log.b.String())
	}
}
