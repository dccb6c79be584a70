package parquet

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var tables = []string{"episodes.parquet", "entities.parquet", "facts.parquet", "fact_versions.parquet",
	"mentions.parquet", "communities.parquet", "has_member.parquet"}

func export(t *testing.T, src sinks.Source) string {
	t.Helper()
	dir := t.TempDir()
	if err := Export(context.Background(), src, dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestExportIsDeterministic(t *testing.T) {
	a, b := export(t, sinkstest.Sample()), export(t, sinkstest.Sample())
	for _, name := range tables {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two exports of the same data", name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(a, "*.tmp"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestSchemasGolden(t *testing.T) {
	dir := export(t, sinkstest.Sample())
	var b strings.Builder
	for _, name := range tables {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := pq.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "# %s (%d rows)\n", name, pf.NumRows())
		if err := pq.PrintSchema(&b, strings.TrimSuffix(name, ".parquet"), pf.Schema()); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
		f.Close()
	}
	path := filepath.Join("testdata", "schemas.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if b.String() != string(want) {
		t.Errorf("schemas differ from testdata/schemas.golden; got:\n%s", b.String())
	}
}

func read[T any](t *testing.T, dir, name string) []T {
	t.Helper()
	rows, err := pq.ReadFile[T](filepath.Join(dir, name))
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return rows
}

func TestExportRoundTrip(t *testing.T) {
	src := sinkstest.Sample()
	dir := export(t, src)

	eps := read[EpisodeRow](t, dir, "episodes.parquet")
	if len(eps) != 3 || eps[0].Name != "m1" || eps[2].Name != "order 7" {
		t.Fatalf("episodes out of order: %+v", eps)
	}
	if eps[0].Speaker == nil || *eps[0].Speaker != "Alice" || eps[2].Speaker != nil {
		t.Errorf("speaker = %v / %v, want Alice / null", eps[0].Speaker, eps[2].Speaker)
	}
	if len(eps[0].EntityEdges) != 2 || len(eps[2].EntityEdges) != 0 {
		t.Errorf("entity_edges = %v / %v", eps[0].EntityEdges, eps[2].EntityEdges)
	}
	if !eps[0].CreatedAt.Equal(sinkstest.T(2026, 1, 2, 3, 4)) || !eps[2].CreatedAt.Equal(eps[2].ValidAt) {
		t.Errorf("created_at = %v / %v", eps[0].CreatedAt, eps[2].CreatedAt)
	}
	if eps[0].Content != src.EpisodeList[2].Content {
		t.Errorf("content = %q", eps[0].Content)
	}

	ents := read[EntityRow](t, dir, "entities.parquet")
	byName := map[string]EntityRow{}
	for _, e := range ents {
		byName[e.Name] = e
	}
	alice := byName["Alice"]
	if alice.Attributes == nil || !strings.HasPrefix(*alice.Attributes, `{"address":{"city":"Paris","zip":"75001"},"age":34,`) {
		t.Errorf("attributes = %v", alice.Attributes)
	}
	if len(alice.NameEmbedding) != 3 || alice.NameEmbedding[1] != -0.25 {
		t.Errorf("name_embedding = %v", alice.NameEmbedding)
	}
	if byName["Lyon"].NameEmbedding != nil || byName["Lyon"].Attributes != nil {
		t.Errorf("Lyon has an embedding or attributes: %+v", byName["Lyon"])
	}
	if got := strings.Join(alice.Labels, ","); got != "Entity,Person" {
		t.Errorf("labels = %s", got)
	}

	facts := read[FactRow](t, dir, "facts.parquet")
	for _, f := range facts {
		switch f.Fact {
		case "Alice lived in Lyon.":
			if f.InvalidAt == nil || f.ExpiredAt == nil || !f.InvalidAt.Equal(sinkstest.T(2024, 3, 1, 0, 0)) {
				t.Errorf("lyon interval = %v / %v", f.InvalidAt, f.ExpiredAt)
			}
		case "Alice lives in Paris.":
			if f.InvalidAt != nil || f.ExpiredAt != nil || f.ValidAt == nil || len(f.Episodes) != 2 {
				t.Errorf("paris fact = %+v", f)
			}
		default:
			t.Errorf("unexpected fact %q", f.Fact)
		}
	}

	vs := read[FactVersionRow](t, dir, "fact_versions.parquet")
	if len(vs) != 3 || vs[0].FactUUID > vs[2].FactUUID {
		t.Errorf("fact versions = %+v", vs)
	}
	if n := len(read[EdgeRow](t, dir, "mentions.parquet")); n != 3 {
		t.Errorf("%d mentions, want 3", n)
	}
	hm := read[EdgeRow](t, dir, "has_member.parquet")
	if len(hm) != 2 || hm[0].UUID != graph.HasMemberID(hm[0].SourceNodeUUID, hm[0].TargetNodeUUID) {
		t.Errorf("has_member = %+v", hm)
	}
	if n := len(read[CommunityRow](t, dir, "communities.parquet")); n != 1 {
		t.Errorf("%d communities, want 1", n)
	}
}

func TestExportRowGroups(t *testing.T) {
	src := &sinks.MemSource{}
	const n = EmbeddingRowGroupRows + 100
	for i := range n {
		src.EntityList = append(src.EntityList, graph.Entity{UUID: fmt.Sprintf("e%05d", i), GroupID: "g",
			Name: fmt.Sprint(i), CreatedAt: sinkstest.T(2024, 1, 1, 0, 0), NameEmbedding: []float32{float32(i), 1}})
	}
	dir := export(t, src)
	f, err := os.Open(filepath.Join(dir, "entities.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := pq.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if pf.NumRows() != n || len(pf.RowGroups()) != 2 {
		t.Errorf("%d rows in %d row groups, want %d in 2", pf.NumRows(), len(pf.RowGroups()), n)
	}
	rows := read[EntityRow](t, dir, "entities.parquet")
	if rows[n-1].UUID != fmt.Sprintf("e%05d", n-1) || rows[n-1].NameEmbedding[0] != float32(n-1) {
		t.Errorf("last row = %+v", rows[n-1])
	}
}

// failingSource fails while streaming facts.
type failingSource struct{ *sinks.MemSource }

var errBoom = errors.New("boom")

func (f failingSource) EachFact(context.Context, string, func(graph.Fact) error) error {
	return errBoom
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	err := Export(context.Background(), failingSource{sinkstest.Sample()}, dir)
	if !errors.Is(err, errBoom) {
		t.Fatalf("err = %v, want boom", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Export(ctx, sinkstest.Sample(), t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled export: err = %v", err)
	}
	// A blocked target directory fails cleanly.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Export(context.Background(), sinkstest.Sample(), filepath.Join(file, "sub")); err == nil {
		t.Errorf("export under a regular file succeeded")
	}
}

func TestExportErrorLeavesNoPartialFile(t *testing.T) {
	dir := t.TempDir()
	src := sinkstest.Sample()
	src.EntityList[0].Attributes = map[string]any{"bad": func() {}} // cannot be JSON-encoded
	if err := Export(context.Background(), src, dir); err == nil {
		t.Fatal("export with unencodable attributes succeeded")
	}
	left, _ := filepath.Glob(filepath.Join(dir, "entities.parquet*"))
	if len(left) != 0 {
		t.Errorf("partial files left: %v", left)
	}
}
