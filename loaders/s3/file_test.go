package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// fakeSource serves ranges of data and records every request.
type fakeSource struct {
	data []byte
	fail error

	mu     sync.Mutex
	ranges [][2]int64 // [off, len] of each request
}

func (s *fakeSource) readRange(ctx context.Context, off int64, p []byte) error {
	s.mu.Lock()
	s.ranges = append(s.ranges, [2]int64{off, int64(len(p))})
	s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	if len(p) == 0 || off < 0 || off+int64(len(p)) > int64(len(s.data)) {
		return fmt.Errorf("bad range %d+%d of %d", off, len(p), len(s.data))
	}
	copy(p, s.data[off:])
	return nil
}

func (s *fakeSource) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ranges)
}

func testData(n int) []byte {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}

func newTestFile(data []byte, blockSize, cacheBlocks int) (*File, *fakeSource) {
	src := &fakeSource{data: data}
	return newFile(context.Background(), "s3://b/k", src, int64(len(data)), blockSize, cacheBlocks), src
}

// TestReadAtMatchesBytesReader compares every small offset and length with bytes.Reader.
func TestReadAtMatchesBytesReader(t *testing.T) {
	for _, size := range []int{0, 1, 15, 16, 17, 100} {
		data := testData(size)
		ref := bytes.NewReader(data)
		f, src := newTestFile(data, 16, 2)
		for off := int64(0); off <= int64(size)+2; off++ {
			for _, n := range []int{0, 1, 5, 15, 16, 17, 40, 130} {
				want := make([]byte, n)
				wn, werr := ref.ReadAt(want, off)
				got := make([]byte, n)
				gn, gerr := f.ReadAt(got, off)
				if gn != wn || (gerr == nil) != (werr == nil) || !bytes.Equal(got[:gn], want[:wn]) {
					t.Fatalf("size %d ReadAt(len %d, off %d) = %d, %v; want %d, %v", size, n, off, gn, gerr, wn, werr)
				}
				if werr != nil && !errors.Is(gerr, io.EOF) {
					t.Fatalf("size %d ReadAt(len %d, off %d) error %v, want io.EOF", size, n, off, gerr)
				}
			}
		}
		// Every request is a whole block (the last may be short) or a direct read of at least one.
		for _, r := range src.ranges {
			block := r[0]%16 == 0 && (r[1] == 16 || r[0]+r[1] == int64(size))
			if !block && r[1] < 16 {
				t.Errorf("size %d: request %v is neither a block nor a large read", size, r)
			}
		}
	}
}

func TestIOTestReader(t *testing.T) {
	for _, size := range []int{0, 1, 1000, 4096} {
		data := testData(size)
		f, _ := newTestFile(data, 64, 3)
		if err := iotest.TestReader(f, data); err != nil {
			t.Errorf("size %d: %v", size, err)
		}
	}
}

// TestSequentialReadFetchesEachBlockOnce reads with small buffers and checks that every block
// is requested once, in order, and that no request exceeds one block.
func TestSequentialReadFetchesEachBlockOnce(t *testing.T) {
	tests := []struct{ size, block, buf int }{
		{1000, 64, 1}, {1000, 64, 7}, {1000, 64, 63}, {1024, 64, 32}, {10, 64, 3},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d/%d/%d", tt.size, tt.block, tt.buf), func(t *testing.T) {
			data := testData(tt.size)
			f, src := newTestFile(data, tt.block, 2)
			got, err := io.ReadAll(bufioLess{f, tt.buf})
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read %d bytes, %v; want %d", len(got), err, len(data))
			}
			wantReqs := (tt.size + tt.block - 1) / tt.block
			if src.requests() != wantReqs {
				t.Errorf("%d requests, want %d", src.requests(), wantReqs)
			}
			for i, r := range src.ranges {
				if r[0] != int64(i*tt.block) || r[1] > int64(tt.block) {
					t.Errorf("request %d = %v, want block-aligned at %d", i, r, i*tt.block)
				}
			}
		})
	}
}

// bufioLess reads from r at most n bytes per call.
type bufioLess struct {
	r io.Reader
	n int
}

func (b bufioLess) Read(p []byte) (int, error) { return b.r.Read(p[:min(len(p), b.n)]) }

func TestLargeReadsBypassCache(t *testing.T) {
	data := testData(1000)
	f, src := newTestFile(data, 64, 2)
	p := make([]byte, 300)
	if _, err := f.ReadAt(p, 10); err != nil || !bytes.Equal(p, data[10:310]) {
		t.Fatalf("ReadAt: %v", err)
	}
	if len(src.ranges) != 1 || src.ranges[0] != [2]int64{10, 300} {
		t.Errorf("ranges = %v, want one request [10 300]", src.ranges)
	}
	if len(f.cache.blocks) != 0 {
		t.Errorf("large read cached %d blocks", len(f.cache.blocks))
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	data := testData(640)
	f, src := newTestFile(data, 64, 2)
	one := make([]byte, 1)
	for _, blk := range []int64{0, 1, 0, 2, 0, 1} { // 2 evicts 1; 1 is fetched again
		if _, err := f.ReadAt(one, blk*64); err != nil {
			t.Fatal(err)
		}
	}
	var offs []int64
	for _, r := range src.ranges {
		offs = append(offs, r[0])
	}
	if want := []int64{0, 64, 128, 64}; fmt.Sprint(offs) != fmt.Sprint(want) {
		t.Errorf("fetched blocks at %v, want %v", offs, want)
	}
}

func TestConcurrentReadAt(t *testing.T) {
	data := testData(5000)
	f, _ := newTestFile(data, 128, 4)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 300 {
				off, n := r.IntN(5000), 1+r.IntN(300)
				p := make([]byte, n)
				got, err := f.ReadAt(p, int64(off))
				want := data[off:min(off+n, 5000)]
				if got != len(want) || !bytes.Equal(p[:got], want) || (err != nil && !errors.Is(err, io.EOF)) {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v", n, off, got, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestErrorsAndClose(t *testing.T) {
	data := testData(100)
	f, src := newTestFile(data, 16, 2)
	src.fail = errors.New("boom")
	if _, err := f.ReadAt(make([]byte, 4), 3); err == nil || !strings.Contains(err.Error(), "s3://b/k") ||
		!strings.Contains(err.Error(), "boom") {
		t.Errorf("ReadAt error = %v, want one naming the object and the cause", err)
	}
	if _, err := f.ReadAt(make([]byte, 4), -1); err == nil {
		t.Error("negative offset accepted")
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := f.Read(make([]byte, 4)); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Read after Close = %v, want fs.ErrClosed", err)
	}
	if err := f.Close(); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("second Close = %v, want fs.ErrClosed", err)
	}
}
