package s3

import (
	"context"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// bodyAttempts is how many times a range whose response body breaks off is requested again.
// (The SDK itself retries failed requests; it cannot retry a body that fails mid-read.)
const bodyAttempts = 3

// objectSource reads ranges of one S3 object version, identified by its ETag.
type objectSource struct {
	client *s3.Client
	bucket string
	key    string
	etag   string // If-Match condition; empty when the store reported none
}

// readRange fetches bytes [off, off+len(p)) with one ranged GetObject into p.
func (s *objectSource) readRange(ctx context.Context, off int64, p []byte) error {
	rng := fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)
	in := &s3.GetObjectInput{Bucket: &s.bucket, Key: &s.key, Range: &rng}
	if s.etag != "" {
		in.IfMatch = &s.etag
	}
	var err error
	for range bodyAttempts {
		var out *s3.GetObjectOutput
		out, err = s.client.GetObject(ctx, in)
		if err != nil {
			return fmt.Errorf("getting range %s: %w", rng, err)
		}
		_, err = io.ReadFull(out.Body, p)
		out.Body.Close()
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("reading range %s: %w", rng, err)
	}
	return nil
}
