package loaders

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxFooterDepth bounds the nesting of Thrift structures (the real ones nest a few levels; a
// deeper one is forged).
const maxFooterDepth = 64

// thriftWalker steps through the Thrift compact-protocol bytes [pos, end) of r without decoding
// them, reading only headers (strings are skipped, not read). When record is set it records the
// integer fields of the structs that are not inside lists or maps, by the path of field ids
// ("2", "5.1").
type thriftWalker struct {
	r        io.ReaderAt
	pos, end int64
	win      []byte // bytes read from winAt on
	winAt    int64
	ints     map[string]int64
	path     []int16 // nil: not recording
	err      error   // the first read error
}

func newThriftWalker(r io.ReaderAt, pos, end int64, record bool) *thriftWalker {
	w := &thriftWalker{r: r, pos: pos, end: end}
	if record {
		w.ints, w.path = map[string]int64{}, []int16{0}
	}
	return w
}

// errThriftEnd: the bytes end inside a value of fixed size or a header; the decoder reports it.
var errThriftEnd = errors.New("thrift data ends early")

// check walks one struct and keeps only a *footerError or a read error.
func (w *thriftWalker) check() error {
	err := w.structure(0)
	var fe *footerError
	if errors.As(err, &fe) {
		return err
	}
	return w.err
}

func (w *thriftWalker) left() int64 { return w.end - w.pos }

// byte reads one byte through a window of 4 KiB.
func (w *thriftWalker) byte() (byte, error) {
	if w.pos >= w.end {
		return 0, errThriftEnd
	}
	if w.pos < w.winAt || w.pos >= w.winAt+int64(len(w.win)) {
		n := min(4<<10, w.end-w.pos)
		if cap(w.win) < int(n) {
			w.win = make([]byte, 4<<10)
		}
		w.win = w.win[:n]
		if _, err := w.r.ReadAt(w.win, w.pos); err != nil && !errors.Is(err, io.EOF) {
			w.err = fmt.Errorf("reading Parquet metadata at %d: %w", w.pos, err)
			return 0, w.err
		}
		w.winAt = w.pos
	}
	c := w.win[w.pos-w.winAt]
	w.pos++
	return c, nil
}

func (w *thriftWalker) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := w.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errThriftEnd
}

// skipSized skips n bytes the data declared (a string's length): more than are left is a
// *footerError.
func (w *thriftWalker) skipSized(n uint64, what string) error {
	if n > uint64(w.left()) {
		return footerBad("%s of %d bytes with %d bytes left", what, n, w.left())
	}
	w.pos += int64(n)
	return nil
}

// count checks a declared element count against the bytes left.
func (w *thriftWalker) count(n uint64, perElem int64, what string) error {
	if n > uint64(w.left()/perElem) {
		return footerBad("a %s of %d elements with %d bytes left", what, n, w.left())
	}
	return nil
}

// Thrift compact-protocol types.
const (
	tStop, tTrue, tFalse, tByte, tI16, tI32, tI64, tDouble, tBinary, tList, tSet, tMap, tStruct = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
)

// structure steps over one struct: fields until the stop byte.
func (w *thriftWalker) structure(depth int) error {
	if depth > maxFooterDepth {
		return footerBad("structures nested over %d deep", maxFooterDepth)
	}
	var id int16
	for {
		h, err := w.byte()
		if err != nil {
			return err
		}
		if h == tStop {
			return nil
		}
		if d := h >> 4; d != 0 {
			id += int16(d)
		} else { // a long-form field id follows
			v, err := w.varint()
			if err != nil {
				return err
			}
			id = int16(v>>1) ^ -int16(v&1)
		}
		t := h & 0x0f
		switch {
		case w.path != nil && (t == tI16 || t == tI32 || t == tI64):
			v, err := w.varint()
			if err != nil {
				return err
			}
			w.ints[fieldPath(w.path, id)] = int64(v>>1) ^ -int64(v&1)
		case t == tTrue || t == tFalse: // the value is in the type
		case t == tStruct:
			if w.path != nil {
				w.path = append(w.path, id)
			}
			err = w.structure(depth + 1)
			if w.path != nil {
				w.path = w.path[:len(w.path)-1]
			}
		default:
			saved := w.path
			w.path = nil // nothing inside lists and maps is recorded
			err = w.value(t, depth)
			w.path = saved
		}
		if err != nil {
			return err
		}
	}
}

// fieldPath names a field by the ids of the structs around it and its own ("5.1").
func fieldPath(path []int16, id int16) string {
	var b strings.Builder
	for _, p := range path[1:] {
		fmt.Fprintf(&b, "%d.", p)
	}
	fmt.Fprintf(&b, "%d", id)
	return b.String()
}

// value steps over one value of type t.
func (w *thriftWalker) value(t byte, depth int) error {
	switch t {
	case tTrue, tFalse, tByte: // a boolean inside a list takes one byte
		_, err := w.byte()
		return err
	case tI16, tI32, tI64:
		_, err := w.varint()
		return err
	case tDouble:
		if w.left() < 8 {
			return errThriftEnd
		}
		w.pos += 8
		return nil
	case tBinary:
		n, err := w.varint()
		if err != nil {
			return err
		}
		return w.skipSized(n, "a string")
	case tList, tSet:
		h, err := w.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = w.varint(); err != nil {
				return err
			}
		}
		if err := w.count(n, 1, "list"); err != nil {
			return err
		}
		for range n {
			if err := w.value(h&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		n, err := w.varint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := w.byte()
		if err != nil {
			return err
		}
		if err := w.count(n, 2, "map"); err != nil {
			return err
		}
		for range n {
			if err := w.value(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.value(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return w.structure(depth + 1)
	}
	return fmt.Errorf("thrift type %d", t)
}
