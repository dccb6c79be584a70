package loaders

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCheckShape: bodies at each bound pass and one past it is refused naming the bound; the
// scan follows strings with escaped quotes and brackets inside them.
func TestCheckShape(t *testing.T) {
	nest := func(n int, open, close string) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	array := func(n int) string {
		b, _ := json.Marshal(make([]int, n))
		return string(b)
	}
	longKeys := func(keyLen, depth, elems int) string {
		k := strings.Repeat("k", keyLen)
		return strings.Repeat(`{"`+k+`":`, depth) + array(elems) + strings.Repeat("}", depth)
	}
	for _, c := range []struct {
		name, body, want string
	}{
		{"flat", `{"a":1,"b":"x","c":[true,null,{"d":-1.5e3}]}`, ""},
		{"brackets in strings", `{"a":"[[[[{{{{\"]]]]","b\"[":{"c":"}}}"}}`, ""},
		{"objects at the depth bound", nest(MaxJSONDepth, `{"a":`, "}"), ""},
		{"objects past it", nest(MaxJSONDepth+1, `{"a":`, "}"), "nested more than 64"},
		{"9000 levels", nest(9000, `{"a":`, "}"), "nested more than 64"},
		{"arrays past it", nest(MaxJSONDepth+1, "[", "]"), "nested more than 64"},
		{"values at the bound", array(MaxJSONValues - 1), ""},
		{"values past it", array(MaxJSONValues), "more than 100000 values"},
		{"wide object", "{" + strings.Repeat(`"k":1,`, MaxJSONValues) + `"k":1}`, "more than 100000 values"},
		{"long keys deep in a large array", longKeys(4096, 60, 90_000), "paths add up"},
		{"one long key", longKeys(500_000, 1, 1), ""},
	} {
		err := checkShape([]byte(c.body), Shape{})
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestShapeQuarantines: a JSON Lines body past a bound is a quarantined row naming the body
// field and the bound, and the rows around it are read.
func TestShapeQuarantines(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)
	line := func(content string) string {
		return `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":` + content + "}\n"
	}
	path := writeFile(t, t.TempDir(), "in.jsonl", line(`{"ok":1}`)+line(deep)+line(`"text"`))
	rs := readAll(t, Spec{Path: path})
	if len(rs) != 3 || rs[0].Bad != nil || rs[2].Bad != nil {
		t.Fatalf("results %+v", rs)
	}
	if b := rs[1].Bad; b == nil || b.Row != 2 || b.Field != "content" || !strings.Contains(b.Reason, "nested more than 64") {
		t.Fatalf("row 2: %+v, want the body quarantined for its depth", rs[1].Bad)
	}
}
