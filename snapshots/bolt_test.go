package snapshots_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/tests/harness"
)

func TestIsBoltURI(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"bolt://127.0.0.1:7687", true},
		{"neo4j+s://db.example:7687", true},
		{"bolt+ssc://h", true},
		{"http://127.0.0.1:7474", false},
		{"jobs/gold.yaml", false},
		{"bolt:/x", false},
		{".backfill/export", false},
	} {
		if got := snapshots.IsBoltURI(tc.s); got != tc.want {
			t.Errorf("IsBoltURI(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestOpenBoltRefusesCredentialsInTheURI(t *testing.T) {
	_, err := snapshots.OpenBolt(context.Background(), snapshots.BoltOptions{URI: "bolt://neo4j:secret@127.0.0.1:1"})
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "environment") {
		t.Fatalf("err = %v, want a refusal that does not repeat the password", err)
	}
}

// TestOpenNeverRepeatsAPassword: a graph URI with credentials, valid or not, is an error that
// names the server but not the password.
func TestOpenNeverRepeatsAPassword(t *testing.T) {
	for uri, names := range map[string]string{
		"bolt://neo4j:secret@127.0.0.1:1":   "127.0.0.1:1",
		"redis://:secret@127.0.0.1:1":       "127.0.0.1:1",
		"rediss://u:secret@127.0.0.1:1/2":   "127.0.0.1:1",
		"redis://u:secret@127.0.0.1:port/0": "127.0.0.1:port/0",
		"neo4j://u:secret@[::1/x":           "[::1/x",
		"bolt://u:secret@h:1/a@b":           "bolt://h:1",
	} {
		_, err := snapshots.Open(context.Background(), uri)
		if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), names) {
			t.Errorf("%s: err = %v, want one naming %s without the password", uri, err, names)
		}
	}
}

// graphitiShaped is a graph written as graphiti-core writes one (properties backfill does not
// have, zoned and naive datetimes, optional properties left out, a message's speaker inside its
// content, no record key) and as other writers do (a time as RFC 3339 text, a community).
const graphitiShaped = `
CREATE (e1:Episodic {uuid: 'e1', name: 'conv/D1:1', group_id: 'g', source: 'message', source_description: 'chat',
  content: 'Alice: I work at Acme.', valid_at: datetime('2024-01-01T09:00:00+01:00'),
  created_at: datetime('2026-01-01T00:00:00Z'), entity_edges: ['f1']})
CREATE (e2:Episodic {uuid: 'e2', name: 'conv/D1:2', group_id: 'g', source: 'message', source_description: 'chat',
  content: 'Bob: Hi.', valid_at: localdatetime('2024-01-02T10:00:00'), created_at: '2026-01-02T00:00:00Z'})
CREATE (a:Entity:Person {uuid: 'n1', name: 'Alice', group_id: 'g', summary: 'Works at Acme.',
  created_at: datetime('2026-01-01T00:00:00Z'), name_embedding: [1.0, 0.0], labels: ['Entity', 'Person'],
  age: 34, attributes_checked: true})
CREATE (b:Entity {uuid: 'n2', name: 'Acme', group_id: 'g', created_at: datetime('2026-01-01T00:00:00Z')})
CREATE (a)-[:RELATES_TO {uuid: 'f1', group_id: 'g', name: 'WORKS_AT', fact: 'Alice works at Acme',
  episodes: ['e1'], created_at: datetime('2026-01-01T00:00:00Z'), valid_at: datetime('2024-01-01T08:00:00Z'),
  invalid_at: null, fact_embedding: [0.5, 0.5], attributes: 'x'}]->(b)
CREATE (e1)-[:MENTIONS {uuid: 'm1', group_id: 'g', created_at: datetime('2026-01-01T00:00:00Z')}]->(a)
CREATE (c:Community {uuid: 'c1', name: 'Acme people', group_id: 'g', summary: '', created_at: date('2026-01-03')})
CREATE (c)-[:HAS_MEMBER {uuid: 'h1', group_id: 'g'}]->(b)
CREATE (c)-[:HAS_MEMBER {uuid: 'h2', group_id: 'g'}]->(a)
CREATE (:Entity {uuid: 'n3', name: 'Zed', group_id: 'h', created_at: datetime('2026-01-01T00:00:00Z')})
CREATE (:Other {uuid: 'x', group_id: 'zzz'})
`

func TestBoltReadsAGraphitiShapedGraph(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	ctx := context.Background()
	if err := harness.ClearNeo4j(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Neo4jQuery(ctx, uri, graphitiShaped); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshots.OpenBolt(ctx, snapshots.BoltOptions{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	if snap.HasVersions() {
		t.Error("a Bolt graph has no version log")
	}
	var ids []string
	var g *snapshots.Group
	for grp, err := range snap.Groups(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, grp.ID)
		if grp.ID == "g" {
			g = grp
		}
	}
	if strings.Join(ids, ",") != "g,h" {
		t.Fatalf("groups %v, want g and h (a node of another label is not a group)", ids)
	}
	// Episodes by reference time (the naive one taken as UTC), the name as record key, the
	// zoned time in UTC, a text time parsed; the entity's labels without Entity, the properties
	// backfill does not know as attributes; the fact's reference time its episode's; the absent
	// summary empty, the community's date at midnight, its members sorted.
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	atp := func(s string) *time.Time { v := at(s); return &v }
	want := &snapshots.Group{ID: "g",
		Episodes: []graph.Episode{
			{UUID: "e1", GroupID: "g", Name: "conv/D1:1", Source: "message", SourceDescription: "chat", Content: "Alice: I work at Acme.",
				ReferenceTime: at("2024-01-01T08:00:00Z"), Seq: 0, RecordKey: "conv/D1:1", IngestedAt: at("2026-01-01T00:00:00Z")},
			{UUID: "e2", GroupID: "g", Name: "conv/D1:2", Source: "message", SourceDescription: "chat", Content: "Bob: Hi.",
				ReferenceTime: at("2024-01-02T10:00:00Z"), Seq: 1, RecordKey: "conv/D1:2", IngestedAt: at("2026-01-02T00:00:00Z")},
		},
		Entities: []graph.Entity{
			{UUID: "n1", GroupID: "g", Name: "Alice", Summary: "Works at Acme.", Labels: []string{"Person"},
				Attributes: map[string]any{"age": int64(34), "attributes_checked": true}, CreatedAt: at("2026-01-01T00:00:00Z"),
				NameEmbedding: []float32{1, 0}},
			{UUID: "n2", GroupID: "g", Name: "Acme", CreatedAt: at("2026-01-01T00:00:00Z")},
		},
		Facts: []graph.Fact{{UUID: "f1", GroupID: "g", SourceUUID: "n1", TargetUUID: "n2", Name: "WORKS_AT", Fact: "Alice works at Acme",
			Episodes: []string{"e1"}, CreatedAt: at("2026-01-01T00:00:00Z"), ValidAt: atp("2024-01-01T08:00:00Z"),
			ReferenceTime: at("2024-01-01T08:00:00Z"), Embedding: []float32{0.5, 0.5}}},
		Mentions: []graph.Mention{{UUID: "m1", GroupID: "g", EpisodeUUID: "e1", EntityUUID: "n1", CreatedAt: at("2026-01-01T00:00:00Z")}},
		Communities: []graph.Community{{UUID: "c1", GroupID: "g", Name: "Acme people", Members: []string{"n1", "n2"},
			CreatedAt: at("2026-01-03T00:00:00Z")}},
		NamedKeys: 2,
	}
	if !reflect.DeepEqual(g, want) {
		got, _ := json.Marshal(g)
		exp, _ := json.Marshal(want)
		t.Errorf("group g:\n got %s\nwant %s", got, exp)
	}
	// want skips a group without reading it.
	n := 0
	for grp, err := range snap.Groups(ctx, func(id string) bool { return id == "h" }) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if grp.ID != "h" || len(grp.Entities) != 1 {
			t.Errorf("group %s with %d entities, want h with 1", grp.ID, len(grp.Entities))
		}
	}
	if n != 1 {
		t.Errorf("%d groups read with a filter for h", n)
	}
}

func TestBoltNamesAPropertyOfTheWrongType(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	ctx := context.Background()
	if err := harness.ClearNeo4j(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Neo4jQuery(ctx, uri, `CREATE (:Entity {uuid: 'n1', name: 42, group_id: 'g'})`); err != nil {
		t.Fatal(err)
	}
	snap, err := snapshots.OpenBolt(ctx, snapshots.BoltOptions{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	for _, err := range snap.Groups(ctx, nil) {
		if err == nil || !strings.Contains(err.Error(), "group g") || !strings.Contains(err.Error(), "Entity n1") ||
			!strings.Contains(err.Error(), "n.name is a int64, want a string") {
			t.Fatalf("err = %v, want one naming the group, the node and the property", err)
		}
		return
	}
	t.Fatal("no error")
}
