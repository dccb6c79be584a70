package loaders

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// File is an open input file: sequential reads for JSON, random access for Parquet footers and
// column chunks (an S3 implementation serves ReadAt with ranged GetObject calls).
type File interface {
	io.Reader
	io.ReaderAt
	io.Closer
	Size() int64
}

// FS abstracts where input files live.
type FS interface {
	// Glob returns the names of the files a pattern matches, sorted. A pattern without glob
	// metacharacters names one file or a directory (its files, not recursively).
	Glob(ctx context.Context, pattern string) ([]string, error)
	// Open opens one file Glob returned.
	Open(ctx context.Context, name string) (File, error)
}

// LocalFS is the local file system.
type LocalFS struct{}

// Glob expands a pattern with filepath.Glob, or lists a directory; directories and hidden files
// (".name") inside a listed directory are skipped.
func (LocalFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if strings.ContainsAny(pattern, `*?[\`) {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return nil, fmt.Errorf("globbing %s: %w", pattern, err)
		}
		return regularFiles(matches), nil
	}
	st, err := os.Stat(pattern)
	if err != nil {
		return nil, fmt.Errorf("finding %s: %w", pattern, err)
	}
	if !st.IsDir() {
		return []string{pattern}, nil
	}
	entries, err := os.ReadDir(pattern)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", pattern, err)
	}
	var names []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			names = append(names, filepath.Join(pattern, e.Name()))
		}
	}
	return regularFiles(names), nil
}

// regularFiles keeps the names that are not directories, sorted.
func regularFiles(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if st, err := os.Stat(n); err == nil && !st.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// Open opens a local file.
func (LocalFS) Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening %s: %w", name, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("opening %s: is a directory", name)
	}
	return localFile{File: f, size: st.Size()}, nil
}

type localFile struct {
	*os.File
	size int64
}

func (f localFile) Size() int64 { return f.size }
