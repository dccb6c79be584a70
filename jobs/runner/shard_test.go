package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/stages/ingest"
)

// graphRows lists a store's entities, facts (with intervals) and communities as comparable lines.
func graphRows(t *testing.T, path string) []string {
	t.Helper()
	ctx := context.Background()
	s, err := checkpoints.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var rows []string
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.EachEntity(ctx, "", func(e graph.Entity) error {
		rows = append(rows, fmt.Sprintf("E %s %s %s %q", e.GroupID, e.UUID, e.Name, e.Summary))
		return nil
	}))
	must(s.EachFact(ctx, "", func(f graph.Fact) error {
		rows = append(rows, fmt.Sprintf("F %s %s %v %v %v %v %v", f.GroupID, f.UUID, f.ValidAt, f.InvalidAt, f.CreatedAt, f.ExpiredAt, f.Episodes))
		return nil
	}))
	must(s.EachCommunity(ctx, "", func(c graph.Community) error {
		rows = append(rows, fmt.Sprintf("C %s %s %s %v", c.GroupID, c.UUID, c.Name, c.Members))
		return nil
	}))
	sort.Strings(rows)
	return rows
}

func TestShardsUnionEqualsOneRun(t *testing.T) {
	full := demoJob(t)
	mustRun(t, full)
	want := graphRows(t, full.Checkpoint)
	var got []string
	dir := t.TempDir()
	nonEmpty := 0
	for i := 0; i < 4; i++ {
		j := demoJob(t)
		path := filepath.Join(dir, fmt.Sprintf("shard-%d.db", i))
		_, err := Run(context.Background(), j, Options{Checkpoint: path, Shard: ingest.Shard{Index: i, Count: 4},
			Clock: graph.FixedClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		rows := graphRows(t, path)
		if len(rows) > 0 {
			nonEmpty++
		}
		got = append(got, rows...)
	}
	sort.Strings(got)
	if nonEmpty < 2 {
		t.Fatalf("only %d of 4 shards got groups; the test needs a spread", nonEmpty)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("union of shards (%d rows) differs from one run (%d rows)", len(got), len(want))
	}
}
