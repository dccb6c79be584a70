package testenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// cleanupTimeout bounds the requests that remove a test bucket after the test.
const cleanupTimeout = 30 * time.Second

// Client returns an S3 client for the gateway: static credentials, path-style addressing and
// checksums only where the API requires them (what S3-compatible stores handle best).
func (e S3Env) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint:               aws.String(e.Endpoint),
		Region:                     e.Region,
		Credentials:                credentials.NewStaticCredentialsProvider(e.AccessKey, e.SecretKey, ""),
		UsePathStyle:               true,
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	})
}

// NewBucket creates a fresh bucket named after the test, uploads objects (key → content) in key
// order, and registers a cleanup that deletes every object in the bucket and the bucket itself.
// It returns the bucket name.
func NewBucket(t testing.TB, env S3Env, objects map[string][]byte) string {
	t.Helper()
	ctx := t.Context()
	client := env.Client()
	bucket := BucketName(t.Name())
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("creating bucket %s: %v", bucket, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		defer cancel()
		if err := DeleteBucket(ctx, client, bucket); err != nil {
			t.Errorf("removing bucket %s: %v", bucket, err)
		}
	})
	keys := make([]string, 0, len(objects))
	for k := range objects {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:        aws.String(bucket),
			Key:           aws.String(k),
			Body:          bytes.NewReader(objects[k]),
			ContentLength: aws.Int64(int64(len(objects[k]))),
		})
		if err != nil {
			t.Fatalf("uploading s3://%s/%s: %v", bucket, k, err)
		}
	}
	return bucket
}

// BucketName turns a test name into a valid, unique S3 bucket name: "bf-", the name lowercased
// with every other character than [a-z0-9] replaced by '-', and 8 random hex digits, at most 63
// characters in all.
func BucketName(testName string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	const maxStem = 63 - len("bf-") - len("-12345678")
	stem := b.String()
	if len(stem) > maxStem {
		stem = stem[:maxStem]
	}
	stem = strings.Trim(stem, "-")
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix) // crypto/rand.Read never fails
	if stem == "" {
		return "bf-" + hex.EncodeToString(suffix)
	}
	return fmt.Sprintf("bf-%s-%s", stem, hex.EncodeToString(suffix))
}

// DeleteBucket removes every object of bucket, then the bucket.
func DeleteBucket(ctx context.Context, client *s3.Client, bucket string) error {
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing: %w", err)
		}
		if len(page.Contents) == 0 {
			continue
		}
		ids := make([]types.ObjectIdentifier, 0, len(page.Contents))
		for _, o := range page.Contents {
			ids = append(ids, types.ObjectIdentifier{Key: o.Key})
		}
		out, err := client.DeleteObjects(ctx, &s3.DeleteObjectsInput{
			Bucket: aws.String(bucket),
			Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
		})
		if err != nil {
			return fmt.Errorf("deleting objects: %w", err)
		}
		if len(out.Errors) > 0 {
			return fmt.Errorf("deleting %s: %s", aws.ToString(out.Errors[0].Key), aws.ToString(out.Errors[0].Message))
		}
	}
	if _, err := client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
		return fmt.Errorf("deleting bucket: %w", err)
	}
	return nil
}

// Objects returns the content of every object of bucket, by key.
func Objects(ctx context.Context, env S3Env, bucket string) (map[string][]byte, error) {
	client := env.Client()
	out := map[string][]byte{}
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", bucket, err)
		}
		for _, o := range page.Contents {
			obj, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(bucket), Key: o.Key})
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", aws.ToString(o.Key), err)
			}
			var b bytes.Buffer
			_, err = b.ReadFrom(obj.Body)
			obj.Body.Close()
			if err != nil {
				return nil, fmt.Errorf("reading %s: %w", aws.ToString(o.Key), err)
			}
			out[aws.ToString(o.Key)] = b.Bytes()
		}
	}
	return out, nil
}

// ProcessEnv is the environment a backfill process needs to reach the gateway with its
// credentials only: no session token, profile or shared AWS files (they would name files of the
// user running the tests), no instance metadata, and the user cache (where the local copies of
// s3:// stores go) under dir.
func (e S3Env) ProcessEnv(dir string) map[string]string {
	return map[string]string{"AWS_ACCESS_KEY_ID": e.AccessKey, "AWS_SECRET_ACCESS_KEY": e.SecretKey,
		"AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_REGION": e.Region, "AWS_EC2_METADATA_DISABLED": "true",
		"AWS_CONFIG_FILE": filepath.Join(dir, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "no-aws-credentials"),
		"XDG_CACHE_HOME": filepath.Join(dir, "cache")}
}
