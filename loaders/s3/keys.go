package s3

import (
	"fmt"
	"strings"

	"github.com/tkgraph/backfill/internal/options"
)

// Declare declares the job keys of the S3 client (s3.*: for s3:// sources and checkpoints) on
// o's fields.
func (o *Options) Declare(s *options.Section) {
	s.String(&o.Endpoint, "endpoint", "endpoint URL of an S3-compatible store (versitygw, MinIO, …)", options.Empty("AWS's own endpoint"),
		options.Check(func() error {
			if e := o.Endpoint; e != "" && !strings.HasPrefix(e, "http://") && !strings.HasPrefix(e, "https://") {
				return fmt.Errorf("%q is not an http:// or https:// URL", e)
			}
			return nil
		}))
	s.String(&o.Region, "region", "region", options.Empty("the configured region, else us-east-1"))
	s.Bool(&o.PathStyle, "path_style", "address buckets as endpoint/bucket/key")
	s.String(&o.Profile, "profile", "shared-config profile. Credentials come from the standard AWS chain "+
		"(`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, shared files, SSO, web identity, container and instance roles)",
		options.Empty("AWS_PROFILE, else the default profile"))
}
