package main

import (
	"io"

	"github.com/tkgraph/backfill/internal/safefile"
)

// createAtomic opens path for writing through internal/safefile (a new temporary file beside
// it, never a name someone else may have planted); done(true) puts it in place, done(false)
// (after a failure, or after done(true)) removes what is left.
func createAtomic(path string) (io.Writer, func(ok bool) error, error) {
	f, err := safefile.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func(ok bool) error {
		if !ok {
			f.Abort()
			return nil
		}
		return f.Commit()
	}, nil
}

// writeAtomic writes a file through internal/safefile: a failed write leaves no partial file.
func writeAtomic(path string, write func(io.Writer) error) error {
	return safefile.Write(path, write)
}
