package s3

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tkgraph/backfill/loaders"
)

// globMeta are the characters that make a key a pattern for path.Match.
const globMeta = `*?[\`

// Glob returns the sorted names of the objects a pattern like "s3://bucket/prefix/*.parquet"
// matches; see the package documentation for the rules.
func (f *FS) Glob(ctx context.Context, pattern string) ([]string, error) {
	names, err := f.glob(ctx, pattern)
	if err != nil {
		bucket, _, _ := parseName(pattern)
		err = Explain(err, bucket, f.endpoint)
	}
	return names, err
}

// glob is Glob without the hints of Explain.
func (f *FS) glob(ctx context.Context, pattern string) ([]string, error) {
	bucket, key, err := parseName(pattern)
	if err != nil {
		return nil, fmt.Errorf("globbing %s: %w", pattern, err)
	}
	if !strings.ContainsAny(key, globMeta) {
		return f.lookup(ctx, pattern, bucket, key)
	}
	if _, err := path.Match(key, ""); err != nil {
		return nil, fmt.Errorf("globbing %s: %w", pattern, err)
	}
	// An object whose key holds metacharacters is taken literally when it exists.
	if _, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key}); err == nil {
		return []string{pattern}, nil
	} else if !isNotFound(err) {
		return nil, fmt.Errorf("finding %s: %w", pattern, err)
	}
	prefix, delimiter := listPlan(key)
	names, err := f.list(ctx, bucket, prefix, delimiter, func(k string) bool {
		ok, _ := loaders.MatchPath(key, k)
		return ok
	})
	if err != nil {
		return nil, fmt.Errorf("globbing %s: %w", pattern, err)
	}
	return names, nil
}

// lookup resolves a name without metacharacters: the object itself if it exists, else the
// non-hidden objects directly under key+"/".
func (f *FS) lookup(ctx context.Context, name, bucket, key string) ([]string, error) {
	if key != "" && !strings.HasSuffix(key, "/") {
		_, err := f.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &bucket, Key: &key})
		if err == nil {
			return []string{name}, nil
		}
		if !isNotFound(err) {
			return nil, fmt.Errorf("finding %s: %w", name, err)
		}
		key += "/"
	}
	names, err := f.list(ctx, bucket, key, "/", func(k string) bool {
		return !strings.HasPrefix(k[len(key):], ".")
	})
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", name, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("finding %s: %w", name, fs.ErrNotExist)
	}
	return names, nil
}

// listPlan returns the longest literal prefix of a key pattern and the delimiter to list it
// with: "/" when neither '/' nor "**" follows the first metacharacter (only keys directly under
// the prefix's "directory" can match, since * and ? never match '/'), else none.
func listPlan(keyPattern string) (prefix, delimiter string) {
	i := strings.IndexAny(keyPattern, globMeta)
	if i < 0 {
		return keyPattern, "/"
	}
	prefix = keyPattern[:i]
	if rest := keyPattern[i:]; !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		delimiter = "/"
	}
	return prefix, delimiter
}

// list returns "s3://bucket/key" for every key under prefix that keep accepts, sorted, leaving
// out folder markers (keys ending in '/').
func (f *FS) list(ctx context.Context, bucket, prefix, delimiter string, keep func(string) bool) ([]string, error) {
	in := &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix}
	if delimiter != "" {
		in.Delimiter = &delimiter
	}
	var names []string
	pages := s3.NewListObjectsV2Paginator(f.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			k := *o.Key
			if !strings.HasSuffix(k, "/") && keep(k) {
				names = append(names, "s3://"+bucket+"/"+k)
			}
		}
	}
	slices.Sort(names)
	return names, nil
}
