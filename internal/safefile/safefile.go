package safefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Mode is the mode of every file Commit puts in place.
const Mode = 0o644

// File is a file being written under a temporary name; Commit puts it in place.
type File struct {
	f    *os.File
	bw   *bufio.Writer
	path string
	done bool
}

// Create starts writing the file at path: its content goes to a new temporary file beside it
// until Commit. A path that is an existing directory is refused.
func Create(path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("creating %s: it is a directory", path)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, pathless(err))
	}
	return &File{f: f, bw: bufio.NewWriterSize(f, 1<<16), path: path}, nil
}

// Write writes to the temporary file (buffered).
func (f *File) Write(p []byte) (int, error) { return f.bw.Write(p) }

// Name is the target's path.
func (f *File) Name() string { return f.path }

// Commit flushes the temporary file, closes it and renames it onto the target. After a failure
// the temporary file is removed and the target is as it was.
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("writing %s: already closed", f.path)
	}
	f.done = true
	err := f.bw.Flush()
	if err == nil {
		err = f.f.Chmod(Mode)
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.f.Name())
		return fmt.Errorf("writing %s: %w", f.path, pathless(err))
	}
	return nil
}

// Abort removes the temporary file; the target is as it was. It does nothing after Commit, so
// it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// Close is Abort, for callers that hold the file as an io.Closer.
func (f *File) Close() error {
	f.Abort()
	return nil
}

// Write writes the file at path with what write writes, through Create and Commit: when write
// fails, the target is as it was.
func Write(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}

// WriteFile writes data to the file at path through Create and Commit.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Same reports whether a and b name the same existing file (links followed, any spelling).
func Same(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// pathless is an *os.PathError's or *os.LinkError's cause, so that an error names the target,
// never the temporary file.
func pathless(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
