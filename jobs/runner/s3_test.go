package runner

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/jobs/jobstest"
	"github.com/tkgraph/backfill/jobs/pipeline"
	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/loaders/s3"
	"github.com/tkgraph/backfill/report"
)

// s3Env points the AWS SDK's standard credential chain at the test gateway's keys and nothing
// else: no shared files, no instance metadata.
func s3Env(t *testing.T) testenv.S3Env {
	t.Helper()
	env := testenv.S3(t)
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_REGION",
		"AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ROLE_ARN",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", env.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", env.SecretKey)
	return env
}

func useS3(j *pipeline.Job, env testenv.S3Env) {
	j.S3 = s3.Options{Endpoint: env.Endpoint, Region: env.Region, PathStyle: true}
}

// TestDemoFromS3JSONL runs the demo job on its JSON Lines files read from S3 and requires the
// same export as the local run.
func TestDemoFromS3JSONL(t *testing.T) {
	env := s3Env(t)
	local := demoJob(t)
	objects := map[string][]byte{}
	for _, s := range local.Sources {
		b, err := os.ReadFile(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		objects["demo/"+filepath.Base(s.Path)] = b
	}
	bucket := testenv.NewBucket(t, env, objects)
	remote := demoJob(t)
	useS3(remote, env)
	for i := range remote.Sources {
		remote.Sources[i].Path = "s3://" + bucket + "/demo/" + filepath.Base(remote.Sources[i].Path)
	}
	mustRun(t, local)
	rep := mustRun(t, remote)
	if rep.Episodes == 0 {
		t.Fatalf("the S3 run read nothing: %+v", rep)
	}
	sameExport(t, export(t, local), export(t, remote))
}

// locomoPath is the shared LoCoMo file ($LOCOMO, else ../shared/datasets/locomo/locomo10.json
// beside the repository), or the test is skipped saying where it was looked for.
func locomoPath(t *testing.T) string {
	t.Helper()
	return testenv.LoCoMo(t, jobstest.Root(t))
}

// importLoCoMo imports the first turns turns of each of the first n conversations of LoCoMo as
// `backfill import locomo` does, one Parquet file per conversation, and returns file name → bytes.
func importLoCoMo(t *testing.T, n, turns int) map[string][]byte {
	t.Helper()
	errEnough := errors.New("enough")
	var groups []string
	byGroup := map[string][]graph.Episode{}
	err := loaders.ImportLoCoMo(context.Background(), locomoPath(t), func(e graph.Episode) error {
		if !slices.Contains(groups, e.GroupID) {
			if len(groups) == n {
				return errEnough
			}
			groups = append(groups, e.GroupID)
		}
		if len(byGroup[e.GroupID]) < turns {
			byGroup[e.GroupID] = append(byGroup[e.GroupID], e)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, g := range groups {
		var b bytes.Buffer
		w := loaders.NewEpisodeWriter(&b)
		for _, e := range byGroup[g] {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files[g+".parquet"] = b.Bytes()
	}
	return files
}

// TestLoCoMoFromS3Parquet imports the first 120 turns of the first 2 LoCoMo conversations,
// uploads the Parquet files to a bucket, and requires the run reading s3://bucket/locomo/*.parquet
// to give the same export, byte for byte, as the run reading the same files from a local
// directory. (All of LoCoMo, 5,882 turns, takes about 9 s per run without -race; the first 2
// whole conversations, 788 turns, 0.5 s without -race but about 15 s with it, too slow for
// `make test`.)
func TestLoCoMoFromS3Parquet(t *testing.T) {
	env := s3Env(t)
	files := importLoCoMo(t, 2, 120)
	dir := t.TempDir()
	objects := map[string][]byte{}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		objects["locomo/"+name] = b
	}
	bucket := testenv.NewBucket(t, env, objects)
	job := func(path string) *pipeline.Job {
		text := "name: locomo\nrecord_time: reference\nsources:\n  - path: " + path + "\n    format: parquet\n" +
			"checkpoint: " + filepath.Join(t.TempDir(), "locomo.db") + "\n"
		j, err := pipeline.Parse([]byte(text), nil, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	local := job(filepath.Join(dir, "*.parquet"))
	remote := job("s3://" + bucket + "/locomo/*.parquet")
	useS3(remote, env)
	// The two runs are independent: run them side by side.
	var lrep, rrep *report.Report
	var lerr, rerr error
	var wg sync.WaitGroup
	wg.Add(2)
	clock := Options{Clock: graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))}
	go func() { defer wg.Done(); lrep, lerr = Run(t.Context(), local, clock) }()
	go func() { defer wg.Done(); rrep, rerr = Run(t.Context(), remote, clock) }()
	wg.Wait()
	if lerr != nil || rerr != nil {
		t.Fatalf("local run: %v; S3 run: %v", lerr, rerr)
	}
	if rrep.Episodes != lrep.Episodes || rrep.Episodes != 240 || rrep.Facts == 0 {
		t.Fatalf("episodes: local %d, s3 %d; facts %d", lrep.Episodes, rrep.Episodes, rrep.Facts)
	}
	t.Logf("LoCoMo: %d episodes, %d entities, %d facts; local run %.1f s, S3 run %.1f s",
		rrep.Episodes, rrep.Entities, rrep.Facts, lrep.Seconds, rrep.Seconds)
	sameExport(t, export(t, local), export(t, remote))
}
