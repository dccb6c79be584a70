package loaders

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/format"
)

// Bounds of what one page header may claim (checkPages).
const (
	// maxExpansion bounds how much larger a page may claim to be uncompressed than compressed
	// (above the ratios of the codecs Parquet uses), plus maxPageSlack.
	maxExpansion = 32 << 10
	maxPageSlack = 1 << 20
)

// checkChunks checks the byte ranges the footer gives the projected column chunks, and the page
// headers inside them, before the decoder reads any of them: the decoder allocates a page's
// compressed and uncompressed sizes, and its value count, as the headers state them. A chunk
// must lie inside the file, a page inside its chunk, an uncompressed size within maxExpansion
// times the compressed one (plus maxPageSlack), a data page's value count within the rows of
// the row group (the projected columns hold one value per row) and a dictionary's within its
// bytes. A violation is a *footerError.
func checkChunks(r io.ReaderAt, size int64, md *format.FileMetaData, leaves []int) error {
	for g, rg := range md.RowGroups {
		if rg.NumRows < 0 {
			return footerBad("row group %d has %d rows", g, rg.NumRows)
		}
		for _, leaf := range leaves {
			if leaf >= len(rg.Columns) {
				return footerBad("row group %d has %d columns, not %d", g, len(rg.Columns), leaf+1)
			}
			cm := rg.Columns[leaf].MetaData
			start := cm.DataPageOffset
			if cm.DictionaryPageOffset != 0 {
				start = cm.DictionaryPageOffset
			}
			if start < 4 || cm.TotalCompressedSize < 0 || cm.TotalCompressedSize > size-start {
				return footerBad("column chunk %d of row group %d claims bytes %d+%d of a file of %d", leaf, g, start, cm.TotalCompressedSize, size)
			}
			if cm.NumValues < 0 || cm.NumValues > rg.NumRows {
				return footerBad("column chunk %d of row group %d claims %d values for %d rows", leaf, g, cm.NumValues, rg.NumRows)
			}
			if err := checkPages(r, start, start+cm.TotalCompressedSize, rg.NumRows); err != nil {
				var fe *footerError
				if errors.As(err, &fe) {
					fe.where = fmt.Sprintf("page header of column chunk %d of row group %d", leaf, g)
				}
				return err
			}
		}
	}
	return nil
}

// checkPages walks the page headers of one column chunk, bytes [start, end) of the file,
// reading only the headers. A header that ends early or is malformed otherwise ends the walk:
// the decoder reports it.
func checkPages(r io.ReaderAt, start, end, rows int64) error {
	for pos := start; pos < end; {
		w := newThriftWalker(r, pos, end, true)
		if err := w.structure(0); err != nil {
			var fe *footerError
			if errors.As(err, &fe) {
				return err
			}
			return w.err
		}
		comp, uncomp := w.ints["3"], w.ints["2"]
		pos = w.pos
		switch {
		case comp < 0 || comp > end-pos:
			return footerBad("a page of %d bytes at byte %d of a chunk ending at %d", comp, pos, end)
		case uncomp < 0 || uncomp > comp*maxExpansion+maxPageSlack:
			return footerBad("a page of %d bytes that claims %d bytes uncompressed", comp, uncomp)
		}
		for _, f := range []string{"5.1", "8.1"} { // num_values of the data page headers (v1, v2)
			if v, ok := w.ints[f]; ok && (v < 0 || v > rows) {
				return footerBad("a page of %d values in a row group of %d rows", v, rows)
			}
		}
		if v, ok := w.ints["7.1"]; ok && (v < 0 || v > uncomp) { // a dictionary entry takes a byte at least
			return footerBad("a dictionary of %d values in %d bytes", v, uncomp)
		}
		pos += comp
	}
	return nil
}
