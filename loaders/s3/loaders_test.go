package s3

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tkgraph/backfill/loaders"
)

// pqRow is the Parquet schema of the end-to-end fixture, in loaders' default column names.
type pqRow struct {
	GroupID       string `parquet:"group_id"`
	ReferenceTime string `parquet:"reference_time"`
	Speaker       string `parquet:"speaker"`
	Content       string `parquet:"content"`
}

// fixtures returns a multi-page Parquet file and a JSON Lines file with a bad row.
func fixtures(t *testing.T) (pq, jsonl []byte) {
	t.Helper()
	start := time.Date(2023, 5, 1, 9, 0, 0, 0, time.UTC)
	var pqBuf bytes.Buffer
	w := parquet.NewGenericWriter[pqRow](&pqBuf, parquet.PageBufferSize(2048))
	var jl strings.Builder
	for i := range 3000 {
		r := pqRow{
			GroupID:       fmt.Sprintf("g%d", i%7),
			ReferenceTime: start.Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
			Speaker:       []string{"Ann", "Bob"}[i%2],
			Content:       fmt.Sprintf("message %d about topic %d", i, i%13),
		}
		if _, err := w.Write([]pqRow{r}); err != nil {
			t.Fatal(err)
		}
		if i < 200 {
			fmt.Fprintf(&jl, `{"group_id":%q,"reference_time":%q,"speaker":%q,"content":%q}`+"\n",
				r.GroupID, r.ReferenceTime, r.Speaker, r.Content)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	jl.WriteString("{\"group_id\":\"g1\",\"content\":\"no time\"}\n")
	return pqBuf.Bytes(), []byte(jl.String())
}

// readAll runs loaders.Read and returns its episodes (without their file names, which differ
// between S3 and the local disk) and the number of bad rows.
func readAll(t *testing.T, fsys loaders.FS, path string) ([]loaders.Result, int) {
	t.Helper()
	var eps []loaders.Result
	bad := 0
	err := loaders.Read(context.Background(), fsys, loaders.Spec{Path: path}, func(r loaders.Result) error {
		if r.Bad != nil {
			bad++
			return nil
		}
		r.File = ""
		eps = append(eps, r)
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	return eps, bad
}

// TestLoadersReadOverS3 reads the same files through loaders.Read from S3 and from local disk
// and requires identical episodes.
func TestLoadersReadOverS3(t *testing.T) {
	pq, jl := fixtures(t)
	fsys, bucket, rec := newTestFS(t, map[string][]byte{"in/a.parquet": pq, "in/b.jsonl": jl},
		Options{BlockSize: 16 << 10})
	dir := t.TempDir()
	for name, b := range map[string][]byte{"a.parquet": pq, "b.jsonl": jl} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, pattern := range []string{"*.parquet", "*.jsonl"} {
		t.Run(pattern, func(t *testing.T) {
			rec.gets()
			remote, remoteBad := readAll(t, fsys, "s3://"+bucket+"/in/"+pattern)
			local, localBad := readAll(t, loaders.LocalFS{}, filepath.Join(dir, pattern))
			if len(remote) == 0 || remoteBad != localBad || !reflect.DeepEqual(remote, local) {
				t.Fatalf("S3 gave %d episodes and %d bad rows, local %d and %d (or they differ)",
					len(remote), remoteBad, len(local), localBad)
			}
			t.Logf("%d episodes, %d bad, %d GETs", len(remote), remoteBad, len(rec.gets()))
		})
	}
}
