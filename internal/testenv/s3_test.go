package testenv

import (
	"io"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestBucketName(t *testing.T) {
	valid := regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$`)
	tests := []struct{ in, prefix string }{
		{"TestGlob", "bf-testglob-"},
		{"TestGlob/sub_case#01", "bf-testglob-sub-case-01-"},
		{"", "bf-"},
		{"___", "bf-"},
		{"TestAVeryLongNameThatGoesOnAndOnAndOnWellPastTheSixtyThreeCharacterLimit", "bf-testaverylong"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, b := BucketName(tt.in), BucketName(tt.in)
			if !valid.MatchString(a) || len(a) > 63 {
				t.Errorf("BucketName(%q) = %q, not a valid bucket name", tt.in, a)
			}
			if a[:len(tt.prefix)] != tt.prefix {
				t.Errorf("BucketName(%q) = %q, want prefix %q", tt.in, a, tt.prefix)
			}
			if a == b {
				t.Errorf("BucketName(%q) returned %q twice", tt.in, a)
			}
		})
	}
}

func TestNewBucket(t *testing.T) {
	env := S3(t)
	objects := map[string][]byte{
		"a.txt":       []byte("alpha"),
		"dir/b.jsonl": []byte("{\"x\":1}\n"),
		"empty":       {},
	}
	client := env.Client()
	var bucket string
	t.Run("create", func(t *testing.T) {
		bucket = NewBucket(t, env, objects)
		out, err := client.ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
		if err != nil {
			t.Fatalf("listing: %v", err)
		}
		var keys []string
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		if want := []string{"a.txt", "dir/b.jsonl", "empty"}; !equal(keys, want) {
			t.Fatalf("keys = %v, want %v", keys, want)
		}
		for k, want := range objects {
			got, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
			if err != nil {
				t.Fatalf("getting %s: %v", k, err)
			}
			body, err := io.ReadAll(got.Body)
			got.Body.Close()
			if err != nil || string(body) != string(want) {
				t.Errorf("%s = %q, %v; want %q", k, body, err, want)
			}
		}
	})
	// The subtest's cleanup must have removed the bucket.
	if _, err := client.HeadBucket(t.Context(), &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err == nil {
		t.Errorf("bucket %s still exists after its test ended", bucket)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
