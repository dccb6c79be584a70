package s3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tkgraph/backfill/internal/testenv"
)

func TestGlob(t *testing.T) {
	objects := map[string][]byte{
		"data/a.parquet":      []byte("a"),
		"data/b.parquet":      []byte("b"),
		"data/c.jsonl":        []byte("c"),
		"data/.hidden.jsonl":  []byte("h"),
		"data/sub/d.parquet":  []byte("d"),
		"data/sub/":           nil, // a folder marker
		"other/e.parquet":     []byte("e"),
		"top.jsonl":           []byte("t"),
		"lit/export[1].jsonl": []byte("l"),
		"lit/export1.jsonl":   []byte("1"),
	}
	fsys, bucket, _ := newTestFS(t, objects, Options{})
	u := func(keys ...string) []string {
		var out []string
		for _, k := range keys {
			out = append(out, "s3://"+bucket+"/"+k)
		}
		return out
	}
	tests := []struct {
		pattern string
		want    []string
		errIs   error // nil: no error wanted
	}{
		{"data/*.parquet", u("data/a.parquet", "data/b.parquet"), nil},
		{"data/*", u("data/.hidden.jsonl", "data/a.parquet", "data/b.parquet", "data/c.jsonl"), nil},
		{"data/*/*.parquet", u("data/sub/d.parquet"), nil},
		{"*/*.parquet", u("data/a.parquet", "data/b.parquet", "other/e.parquet"), nil},
		{"data/[ab].parquet", u("data/a.parquet", "data/b.parquet"), nil},
		{"data/?.jsonl", u("data/c.jsonl"), nil},
		{"*.jsonl", u("top.jsonl"), nil},
		{"data", u("data/a.parquet", "data/b.parquet", "data/c.jsonl"), nil},
		{"data/", u("data/a.parquet", "data/b.parquet", "data/c.jsonl"), nil},
		{"", u("top.jsonl"), nil},
		{"top.jsonl", u("top.jsonl"), nil},
		{"data/**/*.parquet", u("data/a.parquet", "data/b.parquet", "data/sub/d.parquet"), nil},
		{"**/*.parquet", u("data/a.parquet", "data/b.parquet", "data/sub/d.parquet", "other/e.parquet"), nil},
		{"data/**", u("data/.hidden.jsonl", "data/a.parquet", "data/b.parquet", "data/c.jsonl", "data/sub/d.parquet"), nil},
		{"lit/export[1].jsonl", u("lit/export[1].jsonl"), nil}, // an existing key is taken literally
		{"lit/export[0-9].jsonl", u("lit/export1.jsonl"), nil},
		{"nope/*.parquet", nil, nil},
		{"nope", nil, fs.ErrNotExist},
		{"data/[", nil, errors.New("syntax")},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			got, err := fsys.Glob(t.Context(), "s3://"+bucket+"/"+tt.pattern)
			if tt.errIs != nil {
				if err == nil || (errors.Is(tt.errIs, fs.ErrNotExist) && !errors.Is(err, fs.ErrNotExist)) {
					t.Fatalf("Glob = %v, %v; want error like %v", got, err, tt.errIs)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Glob = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	if _, err := fsys.Glob(t.Context(), "data/*.parquet"); err == nil {
		t.Error("Glob accepted a name without s3://")
	}
}

func TestOpenReadRanges(t *testing.T) {
	const block = 4 << 10
	data := testData(3*block + 100)
	fsys, bucket, rec := newTestFS(t, map[string][]byte{"obj.bin": data, "empty": {}}, Options{BlockSize: block})
	f, err := fsys.Open(t.Context(), "s3://"+bucket+"/obj.bin")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(data))
	}
	rec.gets()
	tests := []struct {
		off, n  int
		wantN   int
		wantEOF bool
	}{
		{0, 10, 10, false},
		{block - 5, 10, 10, false},         // spans two blocks
		{100, 2 * block, 2 * block, false}, // large: one direct request
		{len(data) - 7, 7, 7, false},
		{len(data) - 7, 20, 7, true},
		{len(data), 5, 0, true},
	}
	for _, tt := range tests {
		p := make([]byte, tt.n)
		n, err := f.ReadAt(p, int64(tt.off))
		if n != tt.wantN || errors.Is(err, io.EOF) != tt.wantEOF || (err != nil && !errors.Is(err, io.EOF)) {
			t.Errorf("ReadAt(%d, %d) = %d, %v; want %d, EOF=%v", tt.n, tt.off, n, err, tt.wantN, tt.wantEOF)
		}
		if !bytes.Equal(p[:n], data[tt.off:tt.off+n]) {
			t.Errorf("ReadAt(%d, %d) returned wrong bytes", tt.n, tt.off)
		}
	}
	want := []string{
		"bytes=0-4095", "bytes=4096-8191", fmt.Sprintf("bytes=100-%d", 100+2*block-1),
		fmt.Sprintf("bytes=12288-%d", len(data)-1),
	}
	if got := rec.gets(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("GET ranges = %v, want %v", got, want)
	}

	e, err := fsys.Open(t.Context(), "s3://"+bucket+"/empty")
	if err != nil {
		t.Fatalf("Open empty: %v", err)
	}
	if b, err := io.ReadAll(e); err != nil || len(b) != 0 || e.Size() != 0 {
		t.Errorf("empty object read %d bytes, %v, size %d", len(b), err, e.Size())
	}
	e.Close()
	if len(rec.gets()) != 0 {
		t.Error("reading an empty object sent a GET")
	}
}

// TestSequentialReadStreams reads a whole object with Read and checks that it arrives in
// block-sized ranged GETs, never one request for the whole object.
func TestSequentialReadStreams(t *testing.T) {
	const block = 64 << 10
	data := testData(2<<20 + 123)
	fsys, bucket, rec := newTestFS(t, map[string][]byte{"big.bin": data}, Options{BlockSize: block, CacheBlocks: 2})
	f, err := fsys.Open(t.Context(), "s3://"+bucket+"/big.bin")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer f.Close()
	rec.gets()
	var got bytes.Buffer
	if _, err := io.CopyBuffer(struct{ io.Writer }{&got}, struct{ io.Reader }{f}, make([]byte, 32<<10)); err != nil {
		t.Fatalf("copy: %v", err)
	}
	if !bytes.Equal(got.Bytes(), data) {
		t.Fatal("sequential read returned wrong bytes")
	}
	gets := rec.gets()
	if want := (len(data) + block - 1) / block; len(gets) != want {
		t.Errorf("%d GETs, want %d", len(gets), want)
	}
	for i, g := range gets {
		start := i * block
		end := min(start+block, len(data)) - 1
		if g != fmt.Sprintf("bytes=%d-%d", start, end) {
			t.Fatalf("GET %d has Range %q, want bytes=%d-%d", i, g, start, end)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	fsys, bucket, _ := newTestFS(t, map[string][]byte{"dir/x": []byte("x")}, Options{})
	for _, name := range []string{"s3://" + bucket + "/missing", "s3://" + bucket + "/dir"} {
		if _, err := fsys.Open(t.Context(), name); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), name) {
			t.Errorf("Open(%s) = %v, want fs.ErrNotExist naming it", name, err)
		}
	}
	for _, name := range []string{"s3://" + bucket + "/dir/", "s3://" + bucket, "/local/file"} {
		if _, err := fsys.Open(t.Context(), name); err == nil {
			t.Errorf("Open(%s) succeeded", name)
		}
	}
}

// TestObjectReplacedMidRead checks that a read after the object changed fails (If-Match)
// instead of mixing bytes of two versions.
func TestObjectReplacedMidRead(t *testing.T) {
	env := testenv.S3(t)
	fsys, bucket, _ := newTestFS(t, map[string][]byte{"k": testData(1000)}, Options{BlockSize: 100})
	f, err := fsys.Open(t.Context(), "s3://"+bucket+"/k")
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer f.Close()
	if _, err := f.ReadAt(make([]byte, 10), 0); err != nil {
		t.Fatalf("first read: %v", err)
	}
	_, err = env.Client().PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String("k"), Body: bytes.NewReader(testData(999)),
	})
	if err != nil {
		t.Fatalf("replacing object: %v", err)
	}
	_, err = f.ReadAt(make([]byte, 10), 500)
	if err == nil {
		t.Fatal("read after the object was replaced succeeded")
	}
	t.Logf("read after replace: %v", err)
}
