package s3

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
)

// awsEnvVars are the variables that could make the SDK's configuration depend on the machine.
var awsEnvVars = []string{
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_CA_BUNDLE",
}

// hermeticAWS makes the SDK configuration depend only on what the test sets: no shared files,
// no instance metadata lookups, and the given keys (if any) in the standard variables. It
// returns the path the SDK will read as the shared credentials file.
func hermeticAWS(t *testing.T, accessKey, secretKey string) string {
	t.Helper()
	for _, k := range awsEnvVars {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	dir := t.TempDir()
	creds := filepath.Join(dir, "credentials")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", creds)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	if accessKey != "" {
		t.Setenv("AWS_ACCESS_KEY_ID", accessKey)
		t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
	}
	return creds
}

// recorder is an HTTP client that records the method and Range header of every request.
type recorder struct {
	client http.Client
	mu     sync.Mutex
	reqs   []string // "GET bytes=0-99", "HEAD ", …
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Method+" "+req.Header.Get("Range"))
	r.mu.Unlock()
	return r.client.Do(req)
}

// gets returns the Range headers of the GET requests recorded since the last call.
func (r *recorder) gets() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, q := range r.reqs {
		if rng, ok := strings.CutPrefix(q, "GET "); ok {
			out = append(out, rng)
		}
	}
	r.reqs = nil
	return out
}

// newTestFS uploads objects to a fresh bucket on the test gateway and returns an FS for it
// (credentials from the standard variables), the bucket, and the request recorder.
func newTestFS(t *testing.T, objects map[string][]byte, opts Options) (*FS, string, *recorder) {
	t.Helper()
	env := testenv.S3(t)
	bucket := testenv.NewBucket(t, env, objects)
	hermeticAWS(t, env.AccessKey, env.SecretKey)
	rec := &recorder{}
	opts.Endpoint, opts.Region, opts.PathStyle, opts.HTTPClient = env.Endpoint, env.Region, true, rec
	fsys, err := New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return fsys, bucket, rec
}
