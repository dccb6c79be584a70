package loaders

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Seoul etc. without the system zone database

	goldenfile "github.com/tkgraph/backfill/internal/golden"
)

// readAll runs Read and collects its results.
func readAll(t *testing.T, spec Spec) []Result {
	t.Helper()
	var out []Result
	err := Read(context.Background(), LocalFS{}, spec, func(r Result) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatalf("Read(%s): %v", spec.Path, err)
	}
	return out
}

// writeFile writes a test input file under dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// goldenLine is the golden-file form of one Result.
type goldenLine struct {
	UUID, Group, Name, Source, Description, Speaker, Ref, Key, Content, OriginalGroup string `json:",omitempty"`
	Seq                                                                               int64  `json:",omitempty"`
	Bad                                                                               *Bad   `json:",omitempty"`
}

// render turns results into JSON lines; file names are reduced to their base name.
func render(t *testing.T, rs []Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range rs {
		var g goldenLine
		if r.Bad != nil {
			b := *r.Bad
			b.File = filepath.Base(b.File)
			g.Bad = &b
		} else {
			e := r.Episode
			g = goldenLine{UUID: e.UUID, Group: e.GroupID, Name: e.Name, Source: e.Source,
				Description: e.SourceDescription, Speaker: e.Speaker,
				Ref: e.ReferenceTime.Format(time.RFC3339Nano), Key: e.RecordKey, Content: e.Content,
				OriginalGroup: r.OriginalGroup, Seq: e.Seq}
		}
		line, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "golden", name), got)
}

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
