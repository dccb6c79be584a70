package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync/atomic"
)

// source reads byte ranges of one object.
type source interface {
	// readRange fills p with the object's bytes from off on; len(p) > 0 and the range lies
	// inside the object.
	readRange(ctx context.Context, off int64, p []byte) error
}

// File is an open s3 object. It satisfies loaders.File.
type File struct {
	ctx       context.Context
	name      string
	src       source
	size      int64
	blockSize int64
	cache     *blockCache
	pos       int64 // offset of the next Read
	closed    atomic.Bool
}

func newFile(ctx context.Context, name string, src source, size int64, blockSize, cacheBlocks int) *File {
	return &File{
		ctx:       ctx,
		name:      name,
		src:       src,
		size:      size,
		blockSize: int64(blockSize),
		cache:     newBlockCache(cacheBlocks),
	}
}

// Name returns the s3:// name the file was opened with.
func (f *File) Name() string { return f.name }

// Size returns the object's size in bytes, as HeadObject reported it at Open.
func (f *File) Size() int64 { return f.size }

// ReadAt reads len(p) bytes from offset off, returning io.EOF with a short count at the end of
// the object. Small reads go through the block cache; reads of at least one block are fetched
// straight into p.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() {
		return 0, fmt.Errorf("reading %s: %w", f.name, fs.ErrClosed)
	}
	if off < 0 {
		return 0, fmt.Errorf("reading %s: negative offset %d", f.name, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), f.size-off))
	if err := f.fill(p[:n], off); err != nil {
		return 0, fmt.Errorf("reading %s at %d: %w", f.name, off, err)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// fill copies the object's bytes [off, off+len(p)) into p; the range lies inside the object.
func (f *File) fill(p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	if int64(len(p)) >= f.blockSize {
		return f.src.readRange(f.ctx, off, p)
	}
	for done := 0; done < len(p); {
		at := off + int64(done)
		idx := at / f.blockSize
		b, err := f.block(idx)
		if err != nil {
			return err
		}
		done += copy(p[done:], b[at-idx*f.blockSize:])
	}
	return nil
}

// block returns block idx of the object from the cache, fetching and caching it when absent.
// Two concurrent readers may both fetch the same block; both get correct bytes.
func (f *File) block(idx int64) ([]byte, error) {
	if b, ok := f.cache.get(idx); ok {
		return b, nil
	}
	start := idx * f.blockSize
	b := make([]byte, min(f.blockSize, f.size-start))
	if err := f.src.readRange(f.ctx, start, b); err != nil {
		return nil, err
	}
	f.cache.put(idx, b)
	return b, nil
}

// Read reads the next bytes of the object sequentially, through the block cache for small
// reads. It returns 0, io.EOF at the end of the object.
func (f *File) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.pos)
	f.pos += int64(n)
	if n > 0 && errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// Close releases the cached blocks. Closing twice returns an error wrapping fs.ErrClosed.
func (f *File) Close() error {
	if f.closed.Swap(true) {
		return fmt.Errorf("closing %s: %w", f.name, fs.ErrClosed)
	}
	f.cache.clear()
	return nil
}
