package loaders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// pqColumn is one projected leaf column and the attributes it feeds.
type pqColumn struct {
	name  string
	leaf  int
	attrs []int
	conv  func(parquet.Value) any
}

// parquetBatch is how many rows are decoded per column at a time.
const parquetBatch = 1024

// readParquet streams a Parquet file row group by row group, reading only the mapped columns.
func (fr *fileReader) readParquet(ctx context.Context, f File) error {
	if fr.names.Body == "*" {
		return errors.New(`body "*" (whole record) is only supported for JSON Lines`)
	}
	if err := checkFooter(f, f.Size()); err != nil {
		var fe *footerError
		if errors.As(err, &fe) { // quarantine the file as a whole (row 0) and go on
			return fr.emit(Result{Bad: &Bad{File: fr.name, Row: 0, Reason: fe.Error()}})
		}
		return err
	}
	pf, err := parquet.OpenFile(f, f.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("opening parquet: %w", err)
	}
	cols, err := fr.parquetColumns(pf.Root())
	if err != nil {
		return err
	}
	leaves := make([]int, len(cols))
	for i, c := range cols {
		leaves[i] = c.leaf
	}
	if err := checkChunks(f, f.Size(), pf.Metadata(), leaves); err != nil {
		var fe *footerError
		if errors.As(err, &fe) {
			return fr.emit(Result{Bad: &Bad{File: fr.name, Row: 0, Reason: fe.Error()}})
		}
		return err
	}
	var row int64
	for i, rg := range pf.RowGroups() {
		if err := fr.readRowGroup(ctx, rg, cols, &row); err != nil {
			return fmt.Errorf("reading row group %d: %w", i, err)
		}
	}
	return nil
}

// parquetColumns resolves the mapping against the schema. The reference time, the body, the group
// (without a DefaultGroup) and every explicitly mapped field must exist; other default-named
// columns are optional.
func (fr *fileReader) parquetColumns(root *parquet.Column) ([]*pqColumn, error) {
	var cols []*pqColumn
	byLeaf := map[int]*pqColumn{}
	for a := range nAttrs {
		name := fr.names.field(a)
		col := findColumn(root, name)
		if col == nil {
			required := a == aTime || a == aBody || a == aGroup && fr.b.spec.DefaultGroup == "" ||
				fr.explicit.field(a) != ""
			if required {
				return nil, fmt.Errorf("column %q is missing", name)
			}
			continue
		}
		if !col.Leaf() || col.MaxRepetitionLevel() > 0 {
			return nil, fmt.Errorf("column %q is not a single primitive value per row", name)
		}
		if c := byLeaf[col.Index()]; c != nil && (a == aTime) == containsTime(c.attrs) {
			c.attrs = append(c.attrs, a)
			continue
		}
		conv, err := converter(col.Type(), a == aTime, fr.b.spec.Timezone)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", name, err)
		}
		c := &pqColumn{name: name, leaf: col.Index(), attrs: []int{a}, conv: conv}
		byLeaf[c.leaf] = c
		cols = append(cols, c)
	}
	return cols, nil
}

func containsTime(attrs []int) bool {
	for _, a := range attrs {
		if a == aTime {
			return true
		}
	}
	return false
}

// findColumn finds a column by its whole name, or by a dotted path through groups.
func findColumn(root *parquet.Column, name string) *parquet.Column {
	if c := root.Column(name); c != nil || !strings.Contains(name, ".") {
		return c
	}
	c := root
	for _, p := range strings.Split(name, ".") {
		if c = c.Column(p); c == nil {
			return nil
		}
	}
	return c
}

// readRowGroup decodes the projected columns in batches and emits one Result per row.
func (fr *fileReader) readRowGroup(ctx context.Context, rg parquet.RowGroup, cols []*pqColumn, row *int64) error {
	chunks := rg.ColumnChunks()
	curs := make([]*pqCursor, len(cols))
	vals := make([][]any, len(cols))
	for i, c := range cols {
		pages := chunks[c.leaf].Pages()
		defer pages.Close()
		curs[i] = &pqCursor{pages: pages, conv: c.conv, buf: make([]parquet.Value, parquetBatch)}
		vals[i] = make([]any, parquetBatch)
	}
	for left := rg.NumRows(); left > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := int(min(left, parquetBatch))
		for i, c := range curs {
			if err := c.read(vals[i][:k]); err != nil {
				return fmt.Errorf("reading column %q: %w", cols[i].name, err)
			}
		}
		for r := 0; r < k; r++ {
			*row++
			var v rowValues
			for i, c := range cols {
				for _, a := range c.attrs {
					v.set(a, vals[i][r])
				}
			}
			res := fr.b.build(fr.pos(*row), &fr.names, &v)
			if res.Bad != nil {
				res.Bad.Raw = parquetRaw(cols, vals, r)
			}
			if err := fr.emit(res); err != nil {
				return err
			}
		}
		left -= int64(k)
	}
	return nil
}

// pqCursor reads the values of one column chunk page by page.
type pqCursor struct {
	pages parquet.Pages
	vr    parquet.ValueReader
	buf   []parquet.Value
	conv  func(parquet.Value) any
}

// read fills dst with the next len(dst) converted values. Values are converted before the next
// page is read, since a page's byte arrays are reused once the next one is read.
func (c *pqCursor) read(dst []any) error {
	for filled := 0; filled < len(dst); {
		if c.vr == nil {
			p, err := c.pages.ReadPage()
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("column has fewer values than the row group has rows")
			}
			if err != nil {
				return err
			}
			c.vr = p.Values()
		}
		n, err := c.vr.ReadValues(c.buf[:min(len(dst)-filled, len(c.buf))])
		for i := 0; i < n; i++ {
			dst[filled+i] = c.conv(c.buf[i])
		}
		filled += n
		switch {
		case errors.Is(err, io.EOF) || n == 0 && err == nil:
			c.vr = nil
		case err != nil:
			return err
		}
	}
	return nil
}

// parquetRaw renders row r's projected values as a JSON object for Bad.Raw.
func parquetRaw(cols []*pqColumn, vals [][]any, r int) string {
	obj := make(map[string]any, len(cols))
	for i, c := range cols {
		x := vals[i][r]
		if t, ok := x.(time.Time); ok {
			x = t.Format(time.RFC3339Nano)
		}
		obj[c.name] = x
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return ""
	}
	return rawText(b)
}
