package graphdb

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/sinkstest"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/snapshots/snapshotstest"
)

// The Memgraph tests run where BACKFILL_MEMGRAPH_URI names a Memgraph server: the GitHub
// Actions workflow .github/workflows/memgraph.yml starts Memgraph's official container for them.
// Elsewhere testenv.Memgraph skips them with a line saying so. They mirror the Neo4j tests with
// the memgraph dialect: load and read back, load again (nothing written) and after killed loads,
// in transactional and analytical storage mode, settle a changed graph, and score the loaded
// graph as its store.

// memgraphDB connects to the Memgraph server and empties it. Every statement runs in an
// auto-commit transaction (session.Run): Memgraph runs its SHOW … INFO queries outside explicit
// transactions only.
func memgraphDB(t *testing.T) (string, neo4j.DriverWithContext) {
	t.Helper()
	uri := testenv.Memgraph(t)
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drv.Close(context.Background()) })
	mgRun(t, drv, "MATCH (n) DETACH DELETE n")
	return uri, drv
}

// mgRun runs one auto-commit query and returns its records as maps.
func mgRun(t *testing.T, drv neo4j.DriverWithContext, q string) []map[string]any {
	t.Helper()
	sess := drv.NewSession(t.Context(), neo4j.SessionConfig{})
	defer sess.Close(context.Background())
	res, err := sess.Run(t.Context(), q, nil)
	if err != nil {
		t.Fatalf("running %q: %v", q, err)
	}
	recs, err := res.Collect(t.Context())
	if err != nil {
		t.Fatalf("running %q: %v", q, err)
	}
	out := make([]map[string]any, len(recs))
	for i, r := range recs {
		out[i] = r.AsMap()
	}
	return out
}

// inUTC gives every time of zero offset the UTC location: Memgraph returns a zoned datetime
// with the zone it stores, which for a time sent in UTC need not be named "UTC" (Neo4j's is).
func inUTC(p map[string]any) map[string]any {
	for k, v := range p {
		if tm, ok := v.(time.Time); ok {
			if _, off := tm.Zone(); off == 0 {
				p[k] = tm.UTC()
			}
		}
	}
	return p
}

// mgHas reports whether one of rows has column col equal to label and a property column naming
// prop (a string, or a list of one string as Memgraph ≥ 3.x shows composite-capable indexes),
// and a kind column containing kind.
func mgHas(rows []map[string]any, kindCol, kind, label, propCol, prop string) bool {
	for _, r := range rows {
		if r["label"] != label || !strings.Contains(fmt.Sprint(r[kindCol]), kind) {
			continue
		}
		switch p := r[propCol].(type) {
		case string:
			if p == prop {
				return true
			}
		case []any:
			if len(p) == 1 && p[0] == prop {
				return true
			}
		}
	}
	return false
}

func TestMemgraphLoadReadBack(t *testing.T) {
	uri, drv := memgraphDB(t)
	src := sinkstest.Sample()
	res := load(t, uri, src, Options{Dialect: cypher.Memgraph, BatchSize: 2})
	want := map[string]int{"Episodic": 3, "Entity": 4, "Entity:Location": 2, "Entity:Person": 1, "Community": 1,
		"RELATES_TO": 2, "MENTIONS": 3, "HAS_MEMBER": 2}
	if !reflect.DeepEqual(res.Counts, want) {
		t.Errorf("counts = %v, want %v", res.Counts, want)
	}
	if res.Nodes != 8 || res.Edges != 7 || res.Groups != 2 || res.FreshGroups != 2 || res.Deleted != 0 || len(res.ConstraintsMissing) > 0 {
		t.Errorf("result = %+v", res)
	}
	readBack(t, drv, src, inUTC)
	// The lookup indexes and the uuid constraints of the memgraph dialect (SHOW INDEX INFO:
	// "index type", "label", "property"; SHOW CONSTRAINT INFO: "constraint type", "label",
	// "properties").
	idx := mgRun(t, drv, "SHOW INDEX INFO")
	for _, l := range []string{"Entity", "Episodic", "Community"} {
		for _, p := range []string{"uuid", "group_id"} {
			if !mgHas(idx, "index type", "label+property", l, "property", p) {
				t.Errorf("no index on :%s(%s) in %v", l, p, idx)
			}
		}
	}
	if !mgHas(idx, "index type", "edge-type+property", "RELATES_TO", "property", "uuid") {
		t.Errorf("no edge index on :RELATES_TO(uuid) in %v", idx)
	}
	cons := mgRun(t, drv, "SHOW CONSTRAINT INFO")
	for _, l := range []string{"Entity", "Episodic", "Community"} {
		if !mgHas(cons, "constraint type", "unique", l, "properties", "uuid") {
			t.Errorf("no uuid uniqueness constraint on :%s in %v", l, cons)
		}
	}
}

// TestMemgraphLoadTwiceAndKilled: a second load writes nothing (every row unchanged, nothing
// deleted, the graph as it was); loads killed midway and loaded again give the clean graph; a
// load in analytical storage mode into the emptied database gives it too, twice.
func TestMemgraphLoadTwiceAndKilled(t *testing.T) {
	uri, drv := memgraphDB(t)
	load(t, uri, sinkstest.Sample(), Options{Dialect: cypher.Memgraph, BatchSize: 2})
	clean := snapshot(t, uri)
	again := load(t, uri, sinkstest.Sample(), Options{Dialect: cypher.Memgraph, BatchSize: 3})
	if again.Deleted != 0 || again.LabelsRemoved != 0 || again.FreshGroups != 0 || again.Unchanged != again.Nodes+again.Edges {
		t.Errorf("second load changed things: %+v", again)
	}
	if got := snapshot(t, uri); got != clean {
		t.Errorf("loading twice changed the graph:\n%s\n---\n%s", got, clean)
	}
	for _, after := range []int64{1, 4, 7} {
		t.Run(fmt.Sprintf("killed after %d rows", after), func(t *testing.T) {
			mgRun(t, drv, "MATCH (n) DETACH DELETE n")
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			src := &cancelling{MemSource: sinkstest.Sample(), after: after, cancel: cancel}
			if _, err := loadErr(ctx, t, uri, src, Options{Dialect: cypher.Memgraph, BatchSize: 1}); !errors.Is(err, context.Canceled) {
				t.Fatalf("killed load: err = %v, want context.Canceled", err)
			}
			if snapshot(t, uri) == clean {
				t.Fatalf("the killed load wrote everything")
			}
			load(t, uri, sinkstest.Sample(), Options{Dialect: cypher.Memgraph, BatchSize: 2})
			if got := snapshot(t, uri); got != clean {
				t.Errorf("graph after a killed and a full load differs:\n%s\n---\n%s", got, clean)
			}
		})
	}
	t.Run("analytical", func(t *testing.T) {
		mgRun(t, drv, "MATCH (n) DETACH DELETE n")
		for i := range 2 {
			res := load(t, uri, sinkstest.Sample(), Options{Dialect: cypher.Memgraph, Analytical: true, BatchSize: 2})
			if got := snapshot(t, uri); got != clean {
				t.Errorf("analytical load %d: the graph differs from the transactional load's:\n%s\n---\n%s", i+1, got, clean)
			}
			if len(res.ConstraintsMissing) > 0 {
				t.Errorf("analytical load %d: constraints missing %v", i+1, res.ConstraintsMissing)
			}
		}
		if mode := mgRun(t, drv, "SHOW STORAGE INFO"); !strings.Contains(fmt.Sprint(mode), "IN_MEMORY_TRANSACTIONAL") {
			t.Errorf("storage mode after an analytical load: %v, want IN_MEMORY_TRANSACTIONAL", mode)
		}
	})
}

func TestMemgraphLoadRemovesStale(t *testing.T) {
	uri, drv := memgraphDB(t)
	load(t, uri, changed(), Options{Dialect: cypher.Memgraph})
	want := snapshot(t, uri)
	mgRun(t, drv, "MATCH (n) DETACH DELETE n")
	load(t, uri, sinkstest.Sample(), Options{Dialect: cypher.Memgraph})
	res := load(t, uri, changed(), Options{Dialect: cypher.Memgraph, BatchSize: 1})
	if res.Deleted != 4 || res.LabelsRemoved != 1 {
		t.Errorf("result = %+v, want 4 deleted and 1 label removed", res)
	}
	if got := snapshot(t, uri); got != want {
		t.Errorf("incremental load differs from a clean load:\n%s\n---\n%s", got, want)
	}
}

// sampleGold states the sample's facts under their episodes' record keys.
const sampleGold = `episodes:
  - {group: user-1, key: m1, says: new job, facts: [[Alice, LIVES_IN, Paris, 2024-03-01, "-"]]}
  - {group: user-1, key: m2, says: Lyon, facts: [[Alice, LIVES_IN, Lyon, 2020, 2024-03-01]]}
  - {group: user_2, key: r1, facts: [[lamp, ORDERED_BY, Bob, "-", "-"]]}
`

// TestLoadedBoltGraphScoresAsItsStore loads the sample into Neo4j (here) and Memgraph (in the
// workflow) and reads it back with eval's reader: the graph names its kind, every group reads as
// the store's (a message's speaker inside its content, as Graphiti stores it), and the gold
// scores are the store's.
func TestLoadedBoltGraphScoresAsItsStore(t *testing.T) {
	gold := filepath.Join(t.TempDir(), "gold.yaml")
	if err := os.WriteFile(gold, []byte(sampleGold), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dialect cypher.Dialect
		kind    string
		uri     func(*testing.T) string
	}{
		{cypher.Neo4j, snapshots.KindNeo4j, func(t *testing.T) string { uri, _ := neo4jDB(t); return uri }},
		{cypher.Memgraph, snapshots.KindMemgraph, func(t *testing.T) string { uri, _ := memgraphDB(t); return uri }},
	} {
		t.Run(string(c.dialect), func(t *testing.T) {
			uri := c.uri(t)
			ctx := t.Context()
			src := sinkstest.Sample()
			store := snapshotstest.Store(t, snapshotstest.Split(src.EpisodeList, src.EntityList, src.FactList,
				src.FactVersionList, src.MentionList, src.CommunityList)...)
			stored := snapshots.OpenStore(store, false)
			load(t, uri, snapshotstest.Source(t, stored), Options{Dialect: c.dialect})
			snap, err := snapshots.OpenBolt(ctx, snapshots.BoltOptions{URI: uri})
			if err != nil {
				t.Fatal(err)
			}
			defer snap.Close()
			if snap.Kind() != c.kind {
				t.Errorf("kind %q, want %s", snap.Kind(), c.kind)
			}
			if got, want := snapshotstest.AsLoaded(t, snap), snapshotstest.AsLoaded(t, stored); !slices.Equal(got, want) {
				t.Errorf("groups read back:\n%s\nwant the store's:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			g, err := evaluation.ReadGold(gold)
			if err != nil {
				t.Fatal(err)
			}
			var reps [2]*evaluation.Report
			for i, s := range []snapshots.Snapshot{stored, snap} {
				if reps[i], err = evaluation.Run(ctx, s, evaluation.Options{Gold: g, GoldFile: "gold.yaml"}); err != nil {
					t.Fatal(err)
				}
			}
			if a, b := reps[0].Gold, reps[1].Gold; a.Matched != 2 || !reflect.DeepEqual(a, b) {
				t.Errorf("gold scores of the %s graph %+v, want the store's %+v (2 matched)", c.kind, b, a)
			}
		})
	}
}
