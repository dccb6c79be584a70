package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tkgraph/backfill/checkpoints"
)

// DefaultLeaseTTL is how long a lease holds without renewal; the holder renews it every quarter
// of that.
const DefaultLeaseTTL = 60 * time.Second

// MinLeaseTTL is the shortest lease allowed: the servers' clocks count in whole seconds.
const MinLeaseTTL = 3 * time.Second

// maxLeaseAttempts bounds the conditional writes one acquisition tries before giving up (each
// failed one means another process wrote the lease in between).
const maxLeaseAttempts = 5

// ErrLost is the error of a replica that lost its bucket to another writer: its lease was taken
// over (it could not renew it within the lease's time) or another process uploaded a snapshot.
var ErrLost = errors.New("another process took over the checkpoint in the bucket")

// leaseBody is the lease object's content (JSON).
type leaseBody struct {
	Owner    string    `json:"owner"` // random id of the holding process
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Since    time.Time `json:"since"`
	TTL      float64   `json:"ttl_seconds"`
	Local    string    `json:"local"`              // the holder's local copy
	Released bool      `json:"released,omitempty"` // given up: anyone may take it
}

// lease is a lease this process holds: the object's ETag after its last write.
type lease struct {
	client  ObjectStore
	loc     Location
	body    leaseBody
	etag    string
	renewed time.Time // local clock: the last successful write
}

// leaseObject is a lease as read from the bucket.
type leaseObject struct {
	body     leaseBody
	etag     string
	age      time.Duration // since its last write, by the server's clock
	modified time.Time
}

// acquireLease takes the lease of loc with a conditional write: created if there is none
// (If-None-Match: *), taken over (If-Match: its ETag) if it was released or expired (not
// renewed within its own TTL, by the server's clock). A lease its holder still renews is a
// *checkpoints.LockedError naming the holder, at once; one whose holder missed two renewals
// (a process that died) is waited for until it expires, then taken over.
func acquireLease(ctx context.Context, client ObjectStore, loc Location, ttl time.Duration, local string, log *slog.Logger) (*lease, error) {
	host, _ := os.Hostname()
	me := leaseBody{Owner: newID(), Host: host, PID: os.Getpid(), Since: time.Now().UTC().Truncate(time.Second), TTL: ttl.Seconds(), Local: local}
	l := &lease{client: client, loc: loc, body: me}
	for range maxLeaseAttempts {
		err := l.write(ctx, nil, aws.String("*"))
		if err == nil {
			return l, nil
		}
		if !conflicted(err) {
			return nil, fmt.Errorf("creating lease %s: %w", loc.Lease(), err)
		}
		cur, err := readLease(ctx, client, loc)
		if notFound(err) { // released and deleted in between
			continue
		}
		if err != nil {
			return nil, err
		}
		held := time.Duration(cur.body.TTL * float64(time.Second))
		if held <= 0 {
			held = DefaultLeaseTTL
		}
		if cur.body.Released || cur.age >= held {
			err := l.write(ctx, aws.String(cur.etag), nil)
			if err == nil {
				if !cur.body.Released {
					log.Warn("took over an expired checkpoint lease: its holder stopped renewing it", "lease", loc.Lease(),
						"holder_host", cur.body.Host, "holder_pid", cur.body.PID, "last_renewed", cur.modified.Format(time.RFC3339))
				}
				return l, nil
			}
			if !conflicted(err) && !notFound(err) {
				return nil, fmt.Errorf("taking over lease %s: %w", loc.Lease(), err)
			}
			continue
		}
		if cur.age >= staleAfter(held) {
			wait := held - cur.age + time.Second
			log.Info("checkpoint lease not renewed for two periods: waiting for it to expire", "lease", loc.Lease(),
				"holder_host", cur.body.Host, "holder_pid", cur.body.PID, "wait", wait.Round(time.Second).String())
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return nil, &checkpoints.LockedError{Store: loc.String(), Lock: loc.Lease(), PID: cur.body.PID, Host: cur.body.Host,
			Since: cur.body.Since.UTC().Format(time.RFC3339),
			Note:  fmt.Sprintf("its lease was renewed %s ago and expires %s after its last renewal", cur.age.Round(time.Second), held)}
	}
	return nil, fmt.Errorf("taking lease %s: other processes wrote it %d times in a row; try again", loc.Lease(), maxLeaseAttempts)
}

// renewEvery is how often a lease of ttl is renewed.
func renewEvery(ttl time.Duration) time.Duration { return ttl / 4 }

// staleAfter is the age of a lease of ttl whose holder missed two renewals: S3 servers date a
// write to the whole second, so a second more.
func staleAfter(ttl time.Duration) time.Duration { return 2*renewEvery(ttl) + time.Second }

// readLease reads the lease object of loc and its age by the server's clock.
func readLease(ctx context.Context, client ObjectStore, loc Location) (leaseObject, error) {
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: &loc.Bucket, Key: aws.String(loc.Key + LeaseSuffix)})
	if err != nil {
		if notFound(err) {
			return leaseObject{}, err
		}
		return leaseObject{}, fmt.Errorf("reading lease %s: %w", loc.Lease(), err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, 64<<10))
	if err != nil {
		return leaseObject{}, fmt.Errorf("reading lease %s: %w", loc.Lease(), err)
	}
	var cur leaseObject
	if err := json.Unmarshal(b, &cur.body); err != nil {
		return leaseObject{}, fmt.Errorf("reading lease %s: %w (delete it if no run holds the checkpoint)", loc.Lease(), err)
	}
	cur.etag, cur.modified = aws.ToString(out.ETag), aws.ToTime(out.LastModified)
	if !cur.modified.IsZero() {
		cur.age = max(serverTime(out.ResultMetadata).Sub(cur.modified), 0)
	}
	return cur, nil
}

// write puts the lease object with a condition and keeps its new ETag.
func (l *lease) write(ctx context.Context, ifMatch, ifNoneMatch *string) error {
	b, _ := json.Marshal(l.body)
	out, err := l.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &l.loc.Bucket, Key: aws.String(l.loc.Key + LeaseSuffix),
		Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b))), ContentType: aws.String("application/json"),
		IfMatch: ifMatch, IfNoneMatch: ifNoneMatch})
	if err != nil {
		return err
	}
	l.etag, l.renewed = aws.ToString(out.ETag), time.Now()
	return nil
}

// renew writes the lease again if this process still holds it (If-Match its last ETag). It
// returns ErrLost when another process wrote it, or when no write succeeded for a whole TTL
// (the lease may have expired and been taken over).
func (l *lease) renew(ctx context.Context) error {
	err := l.write(ctx, aws.String(l.etag), nil)
	switch {
	case err == nil:
		return nil
	case conflicted(err) || notFound(err):
		return fmt.Errorf("%w: lease %s was written by another process", ErrLost, l.loc.Lease())
	case time.Since(l.renewed) >= time.Duration(l.body.TTL*float64(time.Second)):
		return fmt.Errorf("%w: lease %s could not be renewed for %s (%v)", ErrLost, l.loc.Lease(), time.Since(l.renewed).Round(time.Second), err)
	}
	return nil // a transient failure: the next renewal tries again
}

// release marks the lease released (If-Match its last ETag), so the next process takes it at
// once; a lease someone else wrote meanwhile is left alone.
func (l *lease) release(ctx context.Context) error {
	l.body.Released = true
	err := l.write(ctx, aws.String(l.etag), nil)
	if err != nil && !conflicted(err) && !notFound(err) {
		return fmt.Errorf("releasing lease %s: %w", l.loc.Lease(), err)
	}
	return nil
}

// newID is 16 random hex digits.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}
