package pipeline

import (
	"context"
	"strings"
	"sync"

	"github.com/tkgraph/backfill/loaders"
	"github.com/tkgraph/backfill/loaders/s3"
)

// SourceFS returns the file system a job's sources are read from: names starting with "s3://"
// go to S3 (or the S3-compatible store of s3.endpoint) through loaders/s3, everything else to
// the local file system. The S3 client is created on first use, so jobs without S3 sources
// never load the AWS configuration.
func SourceFS(j *Job) loaders.FS {
	return &sourceFS{local: loaders.LocalFS{}, opts: j.S3}
}

type sourceFS struct {
	local loaders.FS
	opts  s3.Options
	mu    sync.Mutex
	s3    *s3.FS
}

// pick returns the file system of a name or pattern.
func (f *sourceFS) pick(ctx context.Context, name string) (loaders.FS, error) {
	if !strings.HasPrefix(name, "s3://") {
		return f.local, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.s3 == nil {
		fs, err := s3.New(ctx, f.opts)
		if err != nil {
			return nil, err
		}
		f.s3 = fs
	}
	return f.s3, nil
}

// Glob lists the files of a pattern on its file system.
func (f *sourceFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	fs, err := f.pick(ctx, pattern)
	if err != nil {
		return nil, err
	}
	return fs.Glob(ctx, pattern)
}

// Open opens a file on its file system.
func (f *sourceFS) Open(ctx context.Context, name string) (loaders.File, error) {
	fs, err := f.pick(ctx, name)
	if err != nil {
		return nil, err
	}
	return fs.Open(ctx, name)
}
