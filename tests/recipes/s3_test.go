package recipes

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
)

// TestS3CheckpointRecipe: a bucket made by `scripts/versitygw.sh bucket`, and what `env`
// exports, are all a run needs to keep its checkpoint in the gateway (see the package doc).
func TestS3CheckpointRecipe(t *testing.T) {
	testenv.S3(t)
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	bucket := "recipe-" + hex.EncodeToString(b)
	dir := t.TempDir()
	// Nothing of the machine's AWS set-up: the script's exports must be enough.
	env := []string{"BUCKET=" + bucket, "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY=", "AWS_SESSION_TOKEN=", "AWS_PROFILE=", "AWS_REGION=",
		"AWS_DEFAULT_REGION=", "AWS_ENDPOINT_URL=", "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "no-aws-config"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "no-aws-credentials")}
	res := shell(t, env, `
scripts/versitygw.sh bucket "$BUCKET"
scripts/versitygw.sh bucket "$BUCKET"
eval "$(scripts/versitygw.sh env)"
backfill run jobs/examples/demo.yaml --checkpoint "s3://$BUCKET/demo.db" $BACKFILL_S3_FLAGS >/dev/null
backfill status jobs/examples/demo.yaml --checkpoint "s3://$BUCKET/demo.db" $BACKFILL_S3_FLAGS
`)
	for _, want := range []string{"created bucket " + bucket, "bucket " + bucket + " exists"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("scripts/versitygw.sh bucket did not say %q:\n%s", want, res.Stderr)
		}
	}
	if !regexp.MustCompile(`(?m)^episodes +56 in 6 groups$`).MatchString(res.Stdout) {
		t.Errorf("status of the store in the bucket:\n%s", res.Stdout)
	}
}
