package loaders

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/records"
)

// BenchmarkHostileShapes reads one JSON Lines record of each shape that used to cost far more
// than its bytes, with the pruning every job has by default (drop_nulls, drop_empty): 9,000
// levels of objects (54 KB), 9,000 of arrays, 100,000 array elements, 40,000 keys.
func BenchmarkHostileShapes(b *testing.B) {
	wide := map[string]int{}
	for i := range 40_000 {
		wide[strings.Repeat("k", 6)+string(rune('a'+i%26))+strings.Repeat("x", i%7)+itoa(i)] = i
	}
	wideJSON, _ := json.Marshal(wide)
	arr, _ := json.Marshal(make([]int, 100_000))
	for _, c := range []struct{ name, body string }{
		{"deep-objects", strings.Repeat(`{"a":`, 9000) + "1" + strings.Repeat("}", 9000)},
		{"deep-arrays", strings.Repeat("[", 9000) + "1" + strings.Repeat("]", 9000)},
		{"large-array", string(arr)},
		{"wide-object", string(wideJSON)},
	} {
		path := filepath.Join(b.TempDir(), "in.jsonl")
		line := `{"group_id":"g","reference_time":"2024-01-01T00:00:00Z","content":` + c.body + "}\n"
		if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
			b.Fatal(err)
		}
		spec := Spec{Path: path, Record: &RecordSpec{Pruner: &records.Pruner{DropNulls: true, DropEmpty: true}}}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Read(context.Background(), LocalFS{}, spec, func(Result) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// BenchmarkCheckShapeTickets is the cost of the shape check on ordinary business records: the
// bundled ticket webhooks (46 records of 8-14 KB).
func BenchmarkCheckShapeTickets(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "tickets.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if err := checkShape([]byte(l), Shape{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
