package cypher

import "testing"

func TestPending(t *testing.T) {
	tests := []struct {
		name  string
		lim   Limits
		sizes []int
		full  int // index of the row after which Add reports full; -1 for never
	}{
		{"rows", Limits{Rows: 3, Bytes: 1000}, []int{1, 1, 1, 1}, 2},
		{"bytes", Limits{Rows: 100, Bytes: 10}, []int{4, 4, 4}, 2},
		{"bytes exactly", Limits{Rows: 100, Bytes: 8}, []int{4, 4}, 1},
		{"one big row", Limits{Rows: 100, Bytes: 8}, []int{50}, 0},
		{"never", Limits{Rows: 10, Bytes: 100}, []int{1, 2, 3}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Pending
			got := -1
			for i, s := range tc.sizes {
				if p.Add(tc.lim, i, s) && got < 0 {
					got = i
				}
			}
			if got != tc.full {
				t.Errorf("full after row %d, want %d", got, tc.full)
			}
			rows, bytes := p.Take()
			if len(rows) != len(tc.sizes) || len(p.Rows) != 0 || p.Bytes != 0 {
				t.Errorf("Take = %d rows, %d bytes; left %d rows, %d bytes", len(rows), bytes, len(p.Rows), p.Bytes)
			}
		})
	}
}
