package cypher

import (
	"reflect"
	"strings"
	"testing"
)

func TestFalkorQuery(t *testing.T) {
	q, err := FalkorQuery("MATCH (n {group_id: $g}) RETURN n.uuid LIMIT $n", map[string]any{"n": 3, "g": `a"b`})
	if err != nil || q != `CYPHER g="a\"b" n=3 MATCH (n {group_id: $g}) RETURN n.uuid LIMIT $n` {
		t.Errorf("query %q, %v", q, err)
	}
	if q, err := FalkorQuery("RETURN 1", nil); q != "RETURN 1" || err != nil {
		t.Errorf("without parameters: %q, %v", q, err)
	}
}

// TestFalkorReply decodes replies as FalkorDB 4.16.3 sends them for `RETURN properties(n),
// labels(n)` of a node with a vecf32 embedding, and the one-part reply of a write.
func TestFalkorReply(t *testing.T) {
	reply := []any{
		[]any{[]any{int64(1), "properties(n)"}, []any{int64(1), "labels(n)"}, []any{int64(1), "x"}},
		[]any{[]any{
			[]any{int64(10), []any{"uuid", []any{int64(2), "a"}, "age", []any{int64(3), int64(3)},
				"name_embedding", []any{int64(12), []any{"0.12345678359270096", "2"}}, "t", []any{int64(1), nil}}},
			[]any{int64(6), []any{[]any{int64(2), "Entity"}}},
			[]any{int64(4), "true"},
		}},
		[]any{"Cached execution: 0"},
	}
	cols, rows, err := FalkorReply(reply)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{map[string]any{"uuid": "a", "age": int64(3), "name_embedding": []any{0.12345678359270096, 2.0}, "t": nil},
		[]any{"Entity"}, true}}
	if !reflect.DeepEqual(cols, []string{"properties(n)", "labels(n)", "x"}) || !reflect.DeepEqual(rows, want) {
		t.Errorf("columns %v rows %#v", cols, rows)
	}
	if cols, rows, err := FalkorReply([]any{[]any{"Nodes created: 1"}}); cols != nil || rows != nil || err != nil {
		t.Errorf("a write's reply: %v %v %v", cols, rows, err)
	}
	for _, bad := range []any{"x", []any{[]any{}, "rows", []any{}}, []any{[]any{}, []any{[]any{[]any{int64(8), nil}}}, []any{}},
		[]any{[]any{}, []any{[]any{[]any{int64(10), []any{"k"}}}}, []any{}}} {
		if _, _, err := FalkorReply(bad); err == nil || strings.Contains(err.Error(), "panic") {
			t.Errorf("reply %v: err %v, want an error", bad, err)
		}
	}
}
