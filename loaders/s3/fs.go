package s3

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/tkgraph/backfill/loaders"
)

// Defaults for Options.
const (
	DefaultRegion      = "us-east-1"
	DefaultBlockSize   = 512 << 10
	DefaultCacheBlocks = 8
)

// Options configures New. The zero value uses AWS S3 with the standard configuration.
type Options struct {
	Endpoint  string // endpoint URL override for S3-compatible stores, e.g. http://127.0.0.1:7070
	Region    string // region; empty means the configured one, else us-east-1
	PathStyle bool   // address buckets as endpoint/bucket/key instead of bucket.endpoint/key
	Profile   string // shared config profile; empty means AWS_PROFILE or "default"

	BlockSize   int           // size of one cached read block; 0 means DefaultBlockSize
	CacheBlocks int           // cached blocks per open file; 0 means DefaultCacheBlocks
	HTTPClient  s3.HTTPClient // optional HTTP client (tests count requests with it)
}

// FS reads s3:// objects. It satisfies loaders.FS.
type FS struct {
	client      *s3.Client
	endpoint    string // Options.Endpoint, for the hints of Explain
	blockSize   int
	cacheBlocks int
}

var _ loaders.FS = (*FS)(nil)

// New loads the AWS configuration and returns an FS.
func New(ctx context.Context, opts Options) (*FS, error) {
	client, err := NewClient(ctx, opts)
	if err != nil {
		return nil, err
	}
	f := &FS{client: client, endpoint: opts.Endpoint, blockSize: opts.BlockSize, cacheBlocks: opts.CacheBlocks}
	if f.blockSize <= 0 {
		f.blockSize = DefaultBlockSize
	}
	if f.cacheBlocks <= 0 {
		f.cacheBlocks = DefaultCacheBlocks
	}
	return f, nil
}

// NewClient loads the AWS configuration and returns the S3 client FS uses (the checkpoint store
// kept in object storage uses the same one: the job's s3 settings apply to both).
func NewClient(ctx context.Context, opts Options) (*s3.Client, error) {
	var load []func(*config.LoadOptions) error
	if opts.Region != "" {
		load = append(load, config.WithRegion(opts.Region))
	}
	if opts.Profile != "" {
		load = append(load, config.WithSharedConfigProfile(opts.Profile))
	}
	if opts.HTTPClient != nil {
		load = append(load, config.WithHTTPClient(opts.HTTPClient))
	}
	if opts.Endpoint != "" {
		u, err := url.Parse(opts.Endpoint)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, errors.New("configuring s3: endpoint must be an absolute URL like http://host:port")
		}
		if u.User != nil {
			return nil, errors.New("configuring s3: endpoint must not contain user information; use credentials instead")
		}
		// S3-compatible stores differ in their support of the newer default checksums.
		load = append(load,
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	cfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("loading aws configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		if opts.Endpoint != "" {
			o.BaseEndpoint = aws.String(opts.Endpoint)
		}
		o.UsePathStyle = opts.PathStyle
	}), nil
}

// Open returns the object a name like "s3://bucket/key" names.
func (f *FS) Open(ctx context.Context, name string) (loaders.File, error) {
	bucket, key, err := parseName(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	if key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("opening %s: not an object key", name)
	}
	head, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		return nil, Explain(fmt.Errorf("opening %s: %w", name, notExist(err)), bucket, f.endpoint)
	}
	src := &objectSource{client: f.client, bucket: bucket, key: key, etag: aws.ToString(head.ETag)}
	return newFile(ctx, name, src, aws.ToInt64(head.ContentLength), f.blockSize, f.cacheBlocks), nil
}

// parseName splits "s3://bucket/key" into bucket and key. The key may be empty.
func parseName(name string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(name, "s3://")
	if !ok {
		return "", "", errors.New("not an s3:// name")
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", errors.New("no bucket in name")
	}
	if strings.ContainsAny(bucket, `*?[\`) {
		return "", "", errors.New("glob metacharacters in the bucket name")
	}
	return bucket, key, nil
}

// isNotFound reports whether err is an HTTP 404 from S3.
func isNotFound(err error) bool {
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == 404
}

// notExist adds fs.ErrNotExist to a 404 error so callers can test it with errors.Is.
func notExist(err error) error {
	if isNotFound(err) {
		return fmt.Errorf("%w: %w", fs.ErrNotExist, err)
	}
	return err
}
