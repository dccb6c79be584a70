package recipes

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/internal/testenv"
)

// TestS3CheckpointRecipe: a bucket made by `scripts/versitygw.sh bucket`, and what `env`
// exports, are all a run needs to keep its checkpoint in the gateway (see the package doc).
func TestS3CheckpointRecipe(t *testing.T) {
	s3 := testenv.S3(t)
	bucket := testenv.BucketName(t.Name())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := testenv.DeleteBucket(ctx, s3.Client(), bucket); err != nil {
			t.Errorf("removing bucket %s: %v", bucket, err)
		}
	})
	// Nothing of the machine's AWS set-up, not even the gateway's credentials: the script's
	// exports must be enough.
	pe := s3.ProcessEnv(t.TempDir())
	pe["AWS_ACCESS_KEY_ID"], pe["AWS_SECRET_ACCESS_KEY"], pe["AWS_REGION"] = "", "", ""
	env := []string{"BUCKET=" + bucket, "AWS_DEFAULT_REGION=", "AWS_ENDPOINT_URL="}
	for k, v := range pe {
		env = append(env, k+"="+v)
	}
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
