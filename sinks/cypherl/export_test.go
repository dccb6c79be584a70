package cypherl

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func exportString(t *testing.T, src sinks.Source, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := ExportWith(context.Background(), src, &b, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestExportGolden(t *testing.T) {
	tests := []struct {
		file string
		o    Options
	}{
		{"sample.memgraph.cypherl", Options{Dialect: cypher.Memgraph, BatchSize: 2, Bulk: true}},
		{"sample.neo4j.cypherl", Options{Dialect: cypher.Neo4j}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got := exportString(t, sinkstest.Sample(), tc.o)
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("reading golden file (run with -update to create it): %v", err)
			}
			if got != string(want) {
				t.Errorf("export differs from %s; got:\n%s", path, got)
			}
			if again := exportString(t, sinkstest.Sample(), tc.o); again != got {
				t.Errorf("two exports of the same data differ")
			}
		})
	}
}

func TestExportShape(t *testing.T) {
	out := exportString(t, sinkstest.Sample(), Options{Dialect: cypher.Memgraph, BatchSize: 2})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var unwinds int
	for i, l := range lines {
		if !strings.HasSuffix(l, ";") || strings.Count(l, ";") != 1 {
			t.Errorf("line %d is not exactly one statement: %s", i+1, l)
		}
		if strings.HasPrefix(l, "UNWIND [") {
			unwinds++
		}
	}
	// 3 episodes (2 lines), 4 entities in 3 label groups over 2 batches (3 lines: {Location,Location},
	// {Person}, {none}), 1 community, 2 facts, 3 mentions (2 lines), 2 has_member edges.
	if unwinds != 2+3+1+1+2+1 {
		t.Errorf("%d UNWIND lines, want 10:\n%s", unwinds, out)
	}
	if !strings.Contains(out, `"dimension": 3`) {
		t.Errorf("vector dimension 3 was not detected")
	}
	if strings.Contains(out, "STORAGE MODE") {
		t.Errorf("storage mode statements without Options.Bulk")
	}
	// Node lookup indexes (uuid, group_id) and the constraints before the rows (no duplicate can
	// be written); the other indexes after.
	first := strings.Index(out, "UNWIND")
	for _, l := range lines {
		lookup := strings.HasPrefix(l, "CREATE INDEX") && (strings.HasSuffix(l, "(uuid);") || strings.HasSuffix(l, "(group_id);")) ||
			strings.HasPrefix(l, "CREATE CONSTRAINT")
		if at := strings.Index(out, l); strings.HasPrefix(l, "CREATE") && lookup != (at < first) {
			t.Errorf("schema statement out of order: %s", l)
		}
	}
}

func TestExportDims(t *testing.T) {
	src := sinkstest.Sample()
	for i := range src.EntityList {
		src.EntityList[i].NameEmbedding = nil
	}
	tests := []struct {
		name    string
		src     sinks.Source
		dims    int
		want    string
		wantNot string
	}{
		{"from facts", src, 0, `"dimension": 3,`, ""},
		{"explicit", sinkstest.Sample(), 7, `"dimension": 7,`, `"dimension": 3`},
		{"disabled", sinkstest.Sample(), -1, "", "VECTOR"},
		{"none in data", &sinks.MemSource{}, 0, "", "VECTOR"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := exportString(t, tc.src, Options{Dialect: cypher.Memgraph, VectorDims: tc.dims})
			if tc.want != "" && !strings.Contains(out, tc.want) {
				t.Errorf("output lacks %q", tc.want)
			}
			if tc.wantNot != "" && strings.Contains(out, tc.wantNot) {
				t.Errorf("output has %q", tc.wantNot)
			}
		})
	}
}

type failingSource struct{ *sinks.MemSource }

var errBoom = errors.New("boom")

func (f failingSource) EachMention(context.Context, string, func(graph.Mention) error) error {
	return errBoom
}

func TestExportErrors(t *testing.T) {
	var b bytes.Buffer
	if err := Export(context.Background(), sinkstest.Sample(), &b, "cassandra"); err == nil {
		t.Errorf("unknown dialect accepted")
	}
	if err := Export(context.Background(), failingSource{sinkstest.Sample()}, &b, cypher.Neo4j); !errors.Is(err, errBoom) {
		t.Errorf("err = %v, want boom", err)
	}
	bad := sinkstest.Sample()
	bad.EntityList[0].Labels = []string{"Not A Label"}
	if err := Export(context.Background(), bad, &b, cypher.Memgraph); err == nil {
		t.Errorf("invalid label accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Export(ctx, sinkstest.Sample(), &b, cypher.Memgraph); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled export: err = %v", err)
	}
}

// TestExportBatchBytes bounds each line by the bytes of its row literals: one row per line once
// a single row passes the bound.
func TestExportBatchBytes(t *testing.T) {
	out := exportString(t, sinkstest.Sample(), Options{Dialect: cypher.Neo4j, BatchBytes: 1})
	if n := strings.Count(out, "UNWIND [{"); n != 15 {
		t.Errorf("%d UNWIND lines, want one per row (15)", n)
	}
	if all := exportString(t, sinkstest.Sample(), Options{Dialect: cypher.Neo4j}); strings.Count(all, "UNWIND [{") != 8 {
		t.Errorf("default bounds: %d UNWIND lines, want one per statement (8)", strings.Count(all, "UNWIND [{"))
	}
}
