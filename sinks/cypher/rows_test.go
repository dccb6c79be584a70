package cypher

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// TestRowsGolden renders every row of the sample graph as JSON (keys sorted by encoding/json).
func TestRowsGolden(t *testing.T) {
	ctx := context.Background()
	src := sinkstest.Sample()
	edges, err := sinkstest.AllEntityEdges(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]Row{}
	err = sinkstest.Walk(ctx, src, sinkstest.Visitor{
		Episode: func(e graph.Episode) { out["episodes"] = append(out["episodes"], EpisodeRow(e, edges[e.UUID])) },
		Entity:  func(e graph.Entity) { out["entities"] = append(out["entities"], EntityRow(e)) },
		Fact:    func(f graph.Fact) { out["facts"] = append(out["facts"], FactRow(f)) },
		Mention: func(m graph.Mention) { out["mentions"] = append(out["mentions"], MentionRow(m)) },
		Community: func(c graph.Community) {
			out["communities"] = append(out["communities"], CommunityRow(c))
			out["has_member"] = append(out["has_member"], HasMemberRows(c)...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "rows.golden.json", append(b, '\n'))
}

func TestRowTypes(t *testing.T) {
	src := sinkstest.Sample()
	aliceRow := EntityRow(src.EntityList[3])
	alice := aliceRow[KeyProps].(Row)
	if _, ok := aliceRow[KeyEmbedding].([]float64); !ok {
		t.Errorf("embedding is %T, want []float64", aliceRow[KeyEmbedding])
	}
	if _, ok := alice["name_embedding"]; ok {
		t.Errorf("name_embedding is in props; the statements set it from row.embedding")
	}
	if ca, ok := alice["created_at"].(time.Time); !ok || ca.Location() != time.UTC {
		t.Errorf("created_at = %#v, want a UTC time.Time", alice["created_at"])
	}
	if alice["uuid"] != src.EntityList[3].UUID {
		t.Errorf("attribute overwrote uuid: %v", alice["uuid"])
	}
	if _, ok := alice["note"]; ok {
		t.Errorf("nil attribute was kept")
	}
	if got := alice["labels"]; !reflect.DeepEqual(got, []string{"Entity", "Person"}) {
		t.Errorf("labels = %v", got)
	}
	if _, ok := EntityRow(src.EntityList[2])[KeyEmbedding]; ok {
		t.Errorf("absent embedding was written")
	}
	paris := FactRow(src.FactList[1])[KeyProps].(Row)
	for _, k := range []string{"expired_at", "invalid_at"} {
		if _, ok := paris[k]; ok {
			t.Errorf("absent %s was written", k)
		}
	}
	if _, ok := paris["episodes"].([]string); !ok {
		t.Errorf("episodes is %T", paris["episodes"])
	}
	noEdges := EpisodeRow(src.EpisodeList[0], nil)[KeyProps].(Row)
	if l, ok := noEdges["entity_edges"].([]string); !ok || l == nil || len(l) != 0 {
		t.Errorf("entity_edges without facts = %#v, want an empty list", noEdges["entity_edges"])
	}
	// Episode r1 has no ingest time: created_at falls back to its reference time.
	if noEdges["created_at"] != noEdges["valid_at"] {
		t.Errorf("created_at %v != valid_at %v", noEdges["created_at"], noEdges["valid_at"])
	}
}

func TestPropertyValue(t *testing.T) {
	zone := time.FixedZone("X", 3600)
	tests := []struct {
		name string
		in   any
		want any
		ok   bool
	}{
		{"nil", nil, nil, false},
		{"string", "x", "x", true},
		{"bool", true, true, true},
		{"int", 7, int64(7), true},
		{"uint8", uint8(7), int64(7), true},
		{"float", 1.5, 1.5, true},
		{"float32", float32(0.5), 0.5, true},
		{"NaN", math.NaN(), nil, false},
		{"json int", json.Number("12"), int64(12), true},
		{"json float", json.Number("1.25"), 1.25, true},
		{"time", time.Date(2024, 1, 1, 1, 0, 0, 0, zone), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"strings", []any{"a", "b"}, []string{"a", "b"}, true},
		{"typed strings", []string{"a"}, []string{"a"}, true},
		{"bools", []any{true, false}, []bool{true, false}, true},
		{"ints", []any{1, int64(2)}, []int64{1, 2}, true},
		{"mixed numbers", []any{1, 2.5}, []float64{1, 2.5}, true},
		{"empty list", []any{}, []string{}, true},
		{"mixed list", []any{"a", 1}, `["a",1]`, true},
		{"nested list", []any{[]any{1}}, `[[1]]`, true},
		{"map", map[string]any{"b": 1, "a": "<x>"}, `{"a":"<x>","b":1}`, true},
		{"bytes", []byte("hi"), `"aGk="`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PropertyValue(tc.in)
			if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("PropertyValue(%#v) = %#v, %v; want %#v, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestHasMemberRows(t *testing.T) {
	c := graph.Community{UUID: "c", GroupID: "g", Members: []string{"b", "a", "b"}, CreatedAt: sinkstest.T(2024, 1, 1, 0, 0)}
	rows := HasMemberRows(c)
	if len(rows) != 2 || rows[0][KeyTarget] != "a" || rows[1][KeyTarget] != "b" {
		t.Fatalf("rows = %v", rows)
	}
	if rows[0][KeyUUID] != graph.HasMemberID("c", "a") || rows[0][KeySource] != "c" {
		t.Errorf("row 0 = %v", rows[0])
	}
}
