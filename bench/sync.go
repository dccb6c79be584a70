package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/providers/stub"
	"github.com/tkgraph/backfill/tests/harness"
)

// SyncResult is what keeping the LoCoMo checkpoint in object storage costs (the sync step):
// LoCoMo through llm/stub with a local checkpoint and with an s3:// one on the versitygw of
// BACKFILL_S3_* (loopback), and the finished store's snapshots and restore at idle.
type SyncResult struct {
	Episodes    int       `json:"episodes"`
	LatencyMS   float64   `json:"latency_ms"`
	Concurrency int       `json:"concurrency"`
	Runs        []SyncRun `json:"runs"`
	// The finished store: its database file, its snapshots taken at idle (no-op resumes) and a
	// restore onto a fresh local copy.
	StoreBytes      int64   `json:"store_bytes"`
	UploadedBytes   int64   `json:"uploaded_bytes"` // one snapshot, compressed
	SnapshotSeconds float64 `json:"snapshot_seconds"`
	Snapshots       int     `json:"snapshots_measured"`
	RestoreSeconds  float64 `json:"restore_seconds"`
	Note            string  `json:"note,omitempty"`
}

// SyncRun is one full run: its wall time and the snapshots it uploaded.
type SyncRun struct {
	Name          string  `json:"name"`
	Every         string  `json:"every"` // checkpoint_sync.seconds ("" for a local checkpoint)
	Seconds       float64 `json:"seconds"`
	Snapshots     int     `json:"snapshots"`
	MeanSeconds   float64 `json:"snapshot_mean_seconds"`
	MaxSeconds    float64 `json:"snapshot_max_seconds"`
	UploadedBytes int64   `json:"uploaded_bytes"` // all its snapshots, compressed
	LastBytes     int64   `json:"last_snapshot_bytes"`
}

// snapshotLine matches the log line of an uploaded snapshot.
var snapshotLine = regexp.MustCompile(`msg="checkpoint snapshot uploaded" .* bytes=(\d+) uploaded=(\d+) seconds=([0-9.]+)`)

// restoreLine matches the log line of a restore.
var restoreLine = regexp.MustCompile(`msg="checkpoint restored from the bucket" .* seconds=([0-9.]+)`)

// idleSnapshots is how many no-op resumes measure the finished store's snapshot.
const idleSnapshots = 3

// benchSync measures the sync's cost on LoCoMo (see SyncResult).
func benchSync(ctx context.Context, bin, dir, dataset string, latency time.Duration, concurrency int) (*SyncResult, error) {
	env := testenv.S3Env{Endpoint: os.Getenv("BACKFILL_S3_ENDPOINT"), AccessKey: os.Getenv("BACKFILL_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("BACKFILL_S3_SECRET_KEY"), Region: envOr("BACKFILL_S3_REGION", "us-east-1")}
	if env.Endpoint == "" || env.AccessKey == "" || env.SecretKey == "" {
		return &SyncResult{Note: "not measured: BACKFILL_S3_* unset (scripts/versitygw.sh start)"}, nil
	}
	client := env.Client()
	var b [4]byte
	_, _ = rand.Read(b[:])
	bucket := "bf-bench-sync-" + hex.EncodeToString(b[:])
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return nil, fmt.Errorf("creating bucket %s: %w", bucket, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = testenv.DeleteBucket(cctx, client, bucket)
	}()
	s, err := harness.StartStub(stub.Options{Latency: latency}, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	o := harness.Options{Env: []string{"AWS_ACCESS_KEY_ID=" + env.AccessKey, "AWS_SECRET_ACCESS_KEY=" + env.SecretKey,
		"AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_REGION=" + env.Region, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "no-aws-credentials")}}
	src := fmt.Sprintf("path: %s\n    format: locomo", dataset)
	job := func(name, checkpoint, sync string) (string, error) {
		y := harness.StubJobYAML("bench-sync-"+name, checkpoint, src, s.URL, concurrency) +
			fmt.Sprintf("s3: {endpoint: %q, path_style: true}\n%s", env.Endpoint, sync)
		p := filepath.Join(dir, "sync-"+name+".yaml")
		return p, os.WriteFile(p, []byte(y), 0o644)
	}
	r := &SyncResult{LatencyMS: float64(latency) / float64(time.Millisecond), Concurrency: concurrency}
	url := "s3://" + bucket + "/locomo-%s.db"
	for _, c := range []struct{ name, every string }{{"local", ""}, {"s3, default period", "300"}, {"s3, every 10 s", "10"}} {
		checkpoint, sync := filepath.Join(dir, "sync-local.db"), ""
		if c.every != "" {
			checkpoint = fmt.Sprintf(url, c.every)
			sync = fmt.Sprintf("checkpoint_sync: {local: %q, seconds: %s}\n", filepath.Join(dir, "sync-copy-"+c.every+".db"), c.every)
		}
		p, err := job(c.every, checkpoint, sync)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		rep, res, err := runJob(ctx, bin, p, dir, o)
		if err != nil {
			return nil, err
		}
		run := SyncRun{Name: c.name, Every: c.every, Seconds: time.Since(start).Seconds()}
		sizes, uploaded, secs := snapshots(res.Stderr)
		run.Snapshots = len(secs)
		for i, sec := range secs {
			run.MeanSeconds += sec / float64(len(secs))
			run.MaxSeconds = max(run.MaxSeconds, sec)
			run.UploadedBytes += uploaded[i]
			run.LastBytes = sizes[i]
		}
		r.Runs, r.Episodes = append(r.Runs, run), rep.Episodes
	}

	// The finished store at idle: a new machine restores it, then no-op resumes upload it whole.
	p, err := job("idle", fmt.Sprintf(url, "300"), fmt.Sprintf("checkpoint_sync: {local: %q}\n", filepath.Join(dir, "sync-restored.db")))
	if err != nil {
		return nil, err
	}
	for i := range idleSnapshots {
		// Each resume records its run: the store changed, so its close uploads it whole.
		_, res, err := runJob(ctx, bin, p, dir, o)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			if m := restoreLine.FindStringSubmatch(res.Stderr); m != nil {
				r.RestoreSeconds, _ = strconv.ParseFloat(m[1], 64)
			}
		}
		sizes, uploaded, secs := snapshots(res.Stderr)
		for j := range secs {
			r.StoreBytes, r.UploadedBytes = sizes[j], uploaded[j]
			r.SnapshotSeconds += secs[j]
			r.Snapshots++
		}
	}
	if r.Snapshots > 0 {
		r.SnapshotSeconds /= float64(r.Snapshots)
	}
	r.Note = "versitygw on loopback: the seconds are the snapshot's (VACUUM INTO, zstd, SHA-256) and a local upload's, not a network's; " +
		"snapshots run beside the stages, so a run waits only for the last one at its end"
	return r, nil
}

// snapshots reads the uploaded snapshots of a run's log: database bytes, uploaded bytes, seconds.
func snapshots(log string) (sizes, uploaded []int64, seconds []float64) {
	for _, m := range snapshotLine.FindAllStringSubmatch(log, -1) {
		b, _ := strconv.ParseInt(m[1], 10, 64)
		u, _ := strconv.ParseInt(m[2], 10, 64)
		s, _ := strconv.ParseFloat(m[3], 64)
		sizes, uploaded, seconds = append(sizes, b), append(uploaded, u), append(seconds, s)
	}
	return sizes, uploaded, seconds
}
