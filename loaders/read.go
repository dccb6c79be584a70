package loaders

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"
)

// ErrNoFiles is returned by Read when a spec's path matches no file.
var ErrNoFiles = errors.New("no input files")

// fileReader carries what every format needs to turn one file's rows into Results.
type fileReader struct {
	name     string
	index    int
	b        builder
	names    Mapping // input field names, defaults filled in
	explicit Mapping // the mapping as the spec wrote it
	emit     func(Result) error
}

func (fr *fileReader) pos(row int64) rowPos {
	return rowPos{file: fr.name, fileIndex: fr.index, row: row}
}

// Read streams every row of every file the spec matches (files in sorted order), calling emit
// for each. A bad row is emitted as a Bad and reading goes on; a file that cannot be read stops
// Read with an error naming it. An error from emit stops Read and is returned wrapped.
func Read(ctx context.Context, fsys FS, spec Spec, emit func(Result) error) error {
	norm, err := spec.normalize()
	if err != nil {
		return err
	}
	names, err := fsys.Glob(ctx, spec.Path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", spec.Path, err)
	}
	if len(names) == 0 {
		return fmt.Errorf("reading %s: %w", spec.Path, ErrNoFiles)
	}
	names = append([]string(nil), names...)
	sort.Strings(names)
	for i, name := range names {
		fr := &fileReader{
			name: name, index: i, b: builder{spec: norm}, names: norm.Mapping,
			explicit: spec.Mapping, emit: emit,
		}
		if err := fr.readGuarded(ctx, fsys); err != nil {
			return err // it names the file
		}
	}
	return nil
}

// readGuarded is read with a panic inside the Parquet decoder turned into an error: parquet-go
// panics on some corrupt footers and page headers, and bad input must not crash the caller. A
// panic anywhere else (in emit, the caller's code, or in this package) is a bug and is passed on.
func (fr *fileReader) readGuarded(ctx context.Context, fsys FS) (err error) {
	emit, inEmit := fr.emit, false
	fr.emit = func(r Result) error {
		inEmit = true
		err := emit(r)
		inEmit = false
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			if inEmit || !panickedIn(string(debug.Stack()), "github.com/parquet-go/") {
				panic(r)
			}
			err = fmt.Errorf("reading %s: the input is corrupt (the decoder failed: %v)", fr.name, r)
		}
	}()
	return fr.read(ctx, fsys)
}

// panickedIn reports whether the innermost function of a module (a "github.com/" frame) under
// the panic of a stack trace lies in the package prefix pkg.
func panickedIn(stack, pkg string) bool {
	_, after, ok := strings.Cut(stack, "panic(")
	if !ok {
		return false
	}
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "github.com/") {
			return strings.HasPrefix(l, pkg)
		}
	}
	return false
}

// read opens one file and streams it in its format. Its errors name the file, once: an error of
// Open names it already (as os.Open does).
func (fr *fileReader) read(ctx context.Context, fsys FS) error {
	format, gz, err := fileFormat(fr.name, fr.b.spec.Format)
	if err != nil {
		return fmt.Errorf("reading %s: %w", fr.name, err)
	}
	if format != FormatJSONL && fr.b.spec.Record.jsonlOnly(&fr.names) {
		return fmt.Errorf("reading %s: JSON record options (json, facts, mapping.object) are only supported for JSON Lines", fr.name)
	}
	f, err := fsys.Open(ctx, fr.name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fr.stream(ctx, f, format, gz); err != nil {
		return fmt.Errorf("reading %s: %w", fr.name, err)
	}
	return nil
}

// stream reads an open file in its format.
func (fr *fileReader) stream(ctx context.Context, f File, format string, gz bool) error {
	if format == FormatParquet {
		if gz {
			return errors.New("gzip-compressed Parquet is not supported")
		}
		return fr.readParquet(ctx, f)
	}
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("opening gzip stream: %w", err)
		}
		defer zr.Close()
		r = zr
	}
	switch format {
	case FormatJSONL:
		return fr.readJSONL(ctx, r)
	case FormatLoCoMo:
		return fr.readLoCoMo(ctx, r)
	case FormatLongMemEval:
		return fr.readLongMemEval(ctx, r)
	}
	return fmt.Errorf("unknown format %q", format)
}

// fileFormat returns the format of a file (the spec's, or one named by its extension) and
// whether it is gzip-compressed (a ".gz" suffix).
func fileFormat(name, format string) (string, bool, error) {
	lower := strings.ToLower(name)
	gz := strings.HasSuffix(lower, ".gz")
	lower = strings.TrimSuffix(lower, ".gz")
	if format != "" {
		return format, gz, nil
	}
	for _, ext := range []string{".jsonl", ".ndjson", ".json-lines"} {
		if strings.HasSuffix(lower, ext) {
			return FormatJSONL, gz, nil
		}
	}
	if strings.HasSuffix(lower, ".parquet") {
		return FormatParquet, gz, nil
	}
	return "", false, errors.New("cannot tell the format from the file extension; set the format")
}
