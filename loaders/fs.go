package loaders

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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
	// Glob returns the names of the files a name or pattern matches, sorted. A name that exists
	// is taken literally, glob metacharacters and all; otherwise a pattern matches with
	// MatchPath's rules ("**" spans directories). A name of a directory means its files, not
	// recursively. Anything named or matched that cannot be read is an error, never skipped.
	Glob(ctx context.Context, pattern string) ([]string, error)
	// Open opens one file Glob returned.
	Open(ctx context.Context, name string) (File, error)
}

// LocalFS is the local file system.
type LocalFS struct{}

// Glob takes an existing name literally (a file, or a directory whose files, except hidden
// ones (".name") and subdirectories, it lists), else expands it as a pattern (localGlob).
func (LocalFS) Glob(ctx context.Context, pattern string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(pattern); err == nil || !HasGlobMeta(pattern) {
		return localName(pattern)
	}
	return localGlob(ctx, pattern)
}

// localName lists what an existing name holds: itself when it is a file, a directory's files.
func localName(name string) ([]string, error) {
	file, err := inputFile(name)
	if err != nil {
		return nil, err
	}
	if file {
		return []string{name}, nil
	}
	entries, err := os.ReadDir(name)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", name, err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(name, e.Name())
		if ok, err := inputFile(p); err != nil {
			return nil, err
		} else if ok {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	return names, nil
}

// WithoutPath drops the operation and path of an *fs.PathError (errors.Is still sees its cause,
// such as fs.ErrNotExist), for messages that name the file already: a file is named once.
func WithoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Open opens a local file.
func (LocalFS) Open(ctx context.Context, name string) (File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", name, WithoutPath(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening %s: %w", name, WithoutPath(err))
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
