package loaders

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// footerError is Parquet metadata (the footer, or a page header) that claims more than its file
// holds: a length beyond the file, a list, map or string longer than the bytes left after it, a
// page larger than its column chunk. The reader would allocate what the metadata claims before
// it could notice, so the file is rejected before decoding and quarantined as a whole with the
// reason.
type footerError struct{ where, reason string }

func (e *footerError) Error() string {
	return fmt.Sprintf("the Parquet %s is corrupt: %s", e.where, e.reason)
}

func footerBad(format string, args ...any) *footerError {
	return &footerError{where: "footer", reason: fmt.Sprintf(format, args...)}
}

// checkFooter checks, before the footer of a Parquet file of the given size is decoded, that
// every size it declares fits in the bytes it has: the footer in the file, and each list, set,
// map and string in the footer bytes after its header (every element takes at least one byte).
// Decoding then allocates at most a small multiple of the footer's size. It returns a
// *footerError for a footer that claims more, nil for a footer within bounds (which may still
// be malformed in other ways, for the decoder to report), or an I/O error.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 { // "PAR1", the footer length, "PAR1"; the decoder reports the details
		return nil
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the footer length: %w", err)
	}
	if string(tail[4:]) != "PAR1" { // not Parquet (or encrypted): the decoder reports it
		return nil
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 {
		return footerBad("it claims %d bytes in a file of %d", n, size)
	}
	w := newThriftWalker(r, size-8-n, size-8, false)
	return w.check()
}
