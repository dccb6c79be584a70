//go:build arrowbench

// The arrow-go comparison (issue 17): the current parquet-go reader against arrow-go's pqarrow
// record reader, both feeding the same row builder, on 1M generated rows (speed, allocations,
// peak heap) and on a corpus of awkward and broken inputs (which each accepts, rejects or
// crashes on). It is behind a build tag so that `go test ./...` does not compile arrow-go:
//
//	go test -tags arrowbench -run TestArrowCorpus -v ./loaders
//	go test -tags arrowbench -run '^$' -bench ParquetReaders -benchmem -benchtime 3x ./loaders
//
// The results and the choice are recorded in bench/results.md and loaders/doc.go.
package loaders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/parquet-go/parquet-go"
)

// readParquetArrow is readParquet through arrow-go: the mapped columns are projected by name
// (leaf indices), read in record batches of parquetBatch rows, converted by arrowColumn and,
// with build, built into rows and emitted exactly as readRowGroup does. It returns the rows read.
func (fr *fileReader) readParquetArrow(ctx context.Context, f File, build bool) (rows int64, err error) {
	rdr, err := file.NewParquetReader(io.NewSectionReader(f, 0, f.Size()))
	if err != nil {
		return 0, fmt.Errorf("opening parquet: %w", err)
	}
	defer rdr.Close()
	pr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: parquetBatch}, memory.DefaultAllocator)
	if err != nil {
		return 0, fmt.Errorf("opening parquet: %w", err)
	}
	type col struct {
		name  string
		attrs []int
	}
	var cols []col
	var leaves []int
	byLeaf := map[int]int{}
	for a := range nAttrs {
		name := fr.names.field(a)
		leaf := rdr.MetaData().Schema.ColumnIndexByName(name)
		if leaf < 0 {
			if a == aTime || a == aBody || a == aGroup && fr.b.spec.DefaultGroup == "" || fr.explicit.field(a) != "" {
				return 0, fmt.Errorf("column %q is missing", name)
			}
			continue
		}
		if i, ok := byLeaf[leaf]; ok {
			cols[i].attrs = append(cols[i].attrs, a)
			continue
		}
		byLeaf[leaf] = len(cols)
		cols = append(cols, col{name: name, attrs: []int{a}})
		leaves = append(leaves, leaf)
	}
	rr, err := pr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return 0, fmt.Errorf("reading parquet: %w", err)
	}
	defer rr.Release()
	vals := make([][]any, len(cols))
	for rr.Next() {
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != len(cols) {
			return rows, fmt.Errorf("record batch has %d columns, want %d", rec.NumCols(), len(cols))
		}
		for i := range cols {
			v, err := arrowColumn(rec.Column(i), containsTime(cols[i].attrs), fr.b.spec.Timezone, vals[i][:0])
			if err != nil {
				return rows, fmt.Errorf("column %q: %w", cols[i].name, err)
			}
			vals[i] = v
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			rows++
			if !build {
				continue
			}
			var v rowValues
			for i, c := range cols {
				for _, a := range c.attrs {
					v.set(a, vals[i][r])
				}
			}
			if err := fr.emit(fr.b.build(fr.pos(rows), &fr.names, &v)); err != nil {
				return rows, err
			}
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return rows, fmt.Errorf("reading parquet: %w", err)
	}
	return rows, nil
}

// decodeParquet is readParquet without the row builder: the projected columns decoded and
// converted (the production pqCursor and converters), nothing built. It returns the rows read.
func (fr *fileReader) decodeParquet(ctx context.Context, f File) (rows int64, err error) {
	pf, err := parquet.OpenFile(f, f.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, fmt.Errorf("opening parquet: %w", err)
	}
	cols, err := fr.parquetColumns(pf.Root())
	if err != nil {
		return 0, err
	}
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		curs := make([]*pqCursor, len(cols))
		vals := make([][]any, len(cols))
		for i, c := range cols {
			curs[i] = &pqCursor{pages: chunks[c.leaf].Pages(), conv: c.conv, buf: make([]parquet.Value, parquetBatch)}
			vals[i] = make([]any, parquetBatch)
		}
		for left := rg.NumRows(); left > 0; {
			k := int(min(left, parquetBatch))
			for i, c := range curs {
				if err := c.read(vals[i][:k]); err != nil {
					return rows, err
				}
			}
			left -= int64(k)
			rows += int64(k)
		}
		for _, c := range curs {
			c.pages.Close()
		}
	}
	return rows, ctx.Err()
}

// arrowColumn converts an Arrow array to the row values converter gives for parquet-go: string,
// int64 (json.Number above the int64 range), float64 or time.Time, nil for null. Like converter,
// it takes text, integers (signed or not) and dictionaries of them, and for the reference time
// also timestamps, dates and floats; any other type is an error.
func arrowColumn(a arrow.Array, isTime bool, loc *time.Location, out []any) ([]any, error) {
	if loc == nil {
		loc = time.UTC
	}
	n := a.Len()
	get := func(f func(i int) any) []any {
		for i := range n {
			if a.IsNull(i) {
				out = append(out, nil)
			} else {
				out = append(out, f(i))
			}
		}
		return out
	}
	switch c := a.(type) {
	case *array.String:
		return get(func(i int) any { return c.Value(i) }), nil
	case *array.LargeString:
		return get(func(i int) any { return c.Value(i) }), nil
	case *array.Binary:
		return get(func(i int) any { return string(c.Value(i)) }), nil
	case *array.Int8:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Int16:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Int32:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Int64:
		return get(func(i int) any { return c.Value(i) }), nil
	case *array.Uint8:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Uint16:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Uint32:
		return get(func(i int) any { return int64(c.Value(i)) }), nil
	case *array.Uint64:
		return get(func(i int) any {
			if u := c.Value(i); u > math.MaxInt64 {
				return json.Number(strconv.FormatUint(u, 10))
			}
			return int64(c.Value(i))
		}), nil
	case *array.Timestamp:
		if !isTime {
			break
		}
		ts := c.DataType().(*arrow.TimestampType)
		return get(func(i int) any {
			t := c.Value(i).ToTime(ts.Unit)
			if ts.TimeZone == "" { // naive: a wall clock in loc
				return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
			}
			return t
		}), nil
	case *array.Date32:
		if !isTime {
			break
		}
		return get(func(i int) any { return time.Date(1970, 1, 1+int(c.Value(i)), 0, 0, 0, 0, loc) }), nil
	case *array.Float64:
		if !isTime {
			break
		}
		return get(func(i int) any { return c.Value(i) }), nil
	case *extensions.UUIDArray:
		if isTime {
			break
		}
		return get(func(i int) any { return c.Value(i).String() }), nil
	case *array.Dictionary:
		dict, err := arrowColumn(c.Dictionary(), isTime, loc, nil)
		if err != nil {
			return nil, err
		}
		return get(func(i int) any { return dict[c.GetValueIndex(i)] }), nil
	}
	return nil, fmt.Errorf("unsupported type %s", a.DataType())
}

// benchRow is a row of the generated input: the four mapped columns and three that a reader
// projecting columns never decodes.
type benchRow struct {
	GroupID       string    `parquet:"group_id,dict"`
	ReferenceTime time.Time `parquet:"reference_time,timestamp(millisecond)"`
	Speaker       string    `parquet:"speaker,dict"`
	Content       string    `parquet:"content"`
	Payload       string    `parquet:"payload"`
	Score         float64   `parquet:"score"`
	Counter       int64     `parquet:"counter"`
}

// writeBenchParquet writes n generated rows (groups of 1,000 rows, 100k rows per row group,
// snappy) to path.
func writeBenchParquet(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := parquet.NewGenericWriter[benchRow](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(100_000))
	words := strings.Fields("alice bob moved to busan seoul started a new job at acme corp on monday with her family and friends")
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	buf := make([]benchRow, 0, 1024)
	for i := range n {
		var b strings.Builder
		for k := range 12 + i%9 {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[(i*7+k*3)%len(words)])
		}
		buf = append(buf, benchRow{GroupID: fmt.Sprintf("conv-%04d", i/1000), ReferenceTime: base.Add(time.Duration(i) * time.Minute),
			Speaker: words[i%4], Content: b.String(), Payload: strings.Repeat(words[i%len(words)], 20), Score: float64(i) / 7, Counter: int64(i)})
		if len(buf) == cap(buf) || i == n-1 {
			if _, err := w.Write(buf); err != nil {
				tb.Fatal(err)
			}
			buf = buf[:0]
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// readWith reads the file at path with one of the two readers, counting episodes and bad rows;
// a panic is returned as an error starting "PANIC".
func readWith(ctx context.Context, reader, path string, spec Spec) (eps, bad int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	spec.Path = path
	norm, err := spec.normalize()
	if err != nil {
		return 0, 0, err
	}
	fr := &fileReader{name: path, b: builder{spec: norm}, names: norm.Mapping, explicit: spec.Mapping,
		emit: func(r Result) error {
			if r.Bad != nil {
				bad++
			} else {
				eps++
			}
			return nil
		}}
	f, err := LocalFS{}.Open(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	switch reader {
	case "arrow":
		_, err := fr.readParquetArrow(ctx, f, true)
		return eps, bad, err
	case "arrow decode":
		n, err := fr.readParquetArrow(ctx, f, false)
		return int(n), 0, err
	case "parquet-go decode":
		n, err := fr.decodeParquet(ctx, f)
		return int(n), 0, err
	}
	return eps, bad, fr.readParquet(ctx, f) // unguarded: a parquet-go panic shows as a panic here
}

// peakHeap samples the live heap as the last GC marked it (/gc/heap/live:bytes: what the reader
// holds, not its garbage) every millisecond until stop is called, and returns the peak above the
// live heap at the start.
func peakHeap() (stop func() uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	start := sample[0].Value.Uint64()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				metrics.Read(s)
				if v := s[0].Value.Uint64(); v > peak.Load() {
					peak.Store(v)
				}
			}
		}
	}()
	return func() uint64 {
		close(done)
		if p := peak.Load(); p > start {
			return p - start
		}
		return 0
	}
}

// BenchmarkParquetReaders reads 1M generated rows (4 of 7 columns mapped) with each reader, to
// episodes (the whole loader) and decoded only (the projected columns converted, no row built).
func BenchmarkParquetReaders(b *testing.B) {
	path := filepath.Join(b.TempDir(), "episodes.parquet")
	const rows = 1_000_000
	writeBenchParquet(b, path, rows)
	if st, err := os.Stat(path); err == nil {
		b.Logf("input: %d rows, %.1f MiB", rows, float64(st.Size())/(1<<20))
	}
	for _, reader := range []string{"parquet-go", "arrow", "parquet-go decode", "arrow decode"} {
		b.Run(reader, func(b *testing.B) {
			var peak uint64
			for b.Loop() {
				stop := peakHeap()
				eps, bad, err := readWith(context.Background(), reader, path, Spec{Mapping: Mapping{Speaker: "speaker"}})
				peak = max(peak, stop())
				if err != nil || eps != rows || bad != 0 {
					b.Fatalf("%s: %d episodes, %d bad, %v", reader, eps, bad, err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MiB")
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// corpus types: each a file of awkward but valid or broken input.
type (
	unsignedRow struct {
		GroupID       uint16 `parquet:"group_id"`
		ReferenceTime uint64 `parquet:"reference_time"`
		Content       string `parquet:"content"`
		RecordKey     uint64 `parquet:"record_key"`
	}
	decimalRow struct {
		GroupID       string `parquet:"group_id"`
		ReferenceTime string `parquet:"reference_time"`
		Content       string `parquet:"content"`
		Amount        int64  `parquet:"amount,decimal(2:18)"`
	}
	dictRow struct {
		GroupID       string `parquet:"group_id,dict"`
		ReferenceTime string `parquet:"reference_time,dict"`
		Content       string `parquet:"content,dict"`
	}
	listRow struct {
		GroupID       string   `parquet:"group_id"`
		ReferenceTime string   `parquet:"reference_time"`
		Content       []string `parquet:"content,list"`
	}
)

func writeRows[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := parquet.Write(f, rows); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestArrowCorpus reads the corpus with both readers and prints what each did. parquet-go, the
// reader in use, must never panic inside readGuarded and must give its documented answers.
func TestArrowCorpus(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	writeRows(t, p("unsigned.parquet"), []unsignedRow{{7, 1709251200000, "hi", math.MaxUint64}, {65535, 1709251260000, "there", 1}})
	writeRows(t, p("decimal.parquet"), []decimalRow{{"g", "2024-03-01T00:00:00Z", "hi", 12345}})
	writeRows(t, p("dictionary.parquet"), []dictRow{{"g", "2024-03-01T00:00:00Z", "hi"}, {"g", "2024-03-01T00:00:00Z", "hi"}, {"h", "2024-03-02T00:00:00Z", "yo"}})
	writeRows(t, p("list.parquet"), []listRow{{"g", "2024-03-01T00:00:00Z", []string{"a", "b"}}})
	good := p("good.parquet")
	writeBenchParquet(t, good, 5000)
	whole, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("truncated.parquet"), whole[:len(whole)*6/10], 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := append([]byte(nil), whole...)
	for i := len(corrupt) / 5; i < len(corrupt)/5+64; i++ { // page data and headers of the first row group
		corrupt[i] ^= 0x5a
	}
	if err := os.WriteFile(p("corrupt.parquet"), corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	footer := append([]byte(nil), whole...)
	for i := len(footer) - 8 - 200; i < len(footer)-8-100; i++ { // inside the Thrift footer
		footer[i] ^= 0x5a
	}
	if err := os.WriteFile(p("footer.parquet"), footer, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		spec       Spec
		pqgo       string // what parquet-go must do: "rows", "error" or "bad" (rows quarantined)
	}{
		{"unsigned (uint16 group, uint64 epoch-ms time, uint64 > int64 key)", p("unsigned.parquet"),
			Spec{TimeFormat: "epoch_ms", Mapping: Mapping{RecordKey: "record_key"}}, "rows"},
		{"decimal(2,18) mapped column", p("decimal.parquet"), Spec{Mapping: Mapping{Speaker: "amount"}}, "error"},
		{"INT96 time, UUID key (pyarrow)", "testdata/pyarrow_int96.parquet", Spec{Mapping: Mapping{RecordKey: "record_key"}}, "rows"},
		{"dictionary-encoded strings", p("dictionary.parquet"), Spec{}, "rows"},
		{"nested list body", p("list.parquet"), Spec{}, "error"},
		{"truncated file (60%)", p("truncated.parquet"), Spec{Mapping: Mapping{Speaker: "speaker"}}, "error"},
		{"64 corrupt bytes in a row group", p("corrupt.parquet"), Spec{Mapping: Mapping{Speaker: "speaker"}}, "error"},
		{"100 corrupt bytes in the Thrift footer", p("footer.parquet"), Spec{Mapping: Mapping{Speaker: "speaker"}}, ""},
	}
	ctx := context.Background()
	for _, c := range cases {
		line := fmt.Sprintf("%-62s", c.name)
		for _, reader := range []string{"parquet-go", "arrow"} {
			eps, bad, err := readWith(ctx, reader, c.path, c.spec)
			got := fmt.Sprintf("%d rows, %d bad", eps, bad)
			if err != nil {
				got = "error: " + err.Error()
			}
			if len(got) > 110 {
				got = got[:110] + "…"
			}
			line += fmt.Sprintf(" | %s: %s", reader, got)
			if reader != "parquet-go" {
				continue
			}
			if err != nil && strings.HasPrefix(err.Error(), "PANIC") {
				// readParquet is unguarded here; Read recovers a panic inside parquet-go
				// (readGuarded) and must turn it into an error.
				rerr := Read(ctx, LocalFS{}, Spec{Path: c.path, Mapping: c.spec.Mapping, TimeFormat: c.spec.TimeFormat}, func(Result) error { return nil })
				if rerr == nil || !strings.Contains(rerr.Error(), "corrupt") {
					t.Errorf("%s: Read after a parquet-go panic: %v", c.name, rerr)
				}
				line += " (Read: recovered)"
			}
			switch c.pqgo {
			case "rows":
				if err != nil || eps == 0 || bad != 0 {
					t.Errorf("%s: parquet-go gave %s, want rows", c.name, got)
				}
			case "error":
				if err == nil {
					t.Errorf("%s: parquet-go gave %s, want an error", c.name, got)
				}
			case "bad":
				if err != nil || bad == 0 {
					t.Errorf("%s: parquet-go gave %s, want the file quarantined", c.name, got)
				}
			}
		}
		t.Log(line)
	}
}
