package community

import (
	"reflect"
	"testing"
)

func TestPropagatePanicsOnBadEndpoint(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an edge to node 3 of 3 nodes did not panic")
		}
	}()
	Propagate(3, []Edge{{0, 3, 1}}, Options{})
}

func TestGroups(t *testing.T) {
	tests := []struct {
		labels []int32
		want   [][]int32
	}{
		{nil, nil},
		{[]int32{-1, -1}, nil},
		{[]int32{0, 0, 2, 0, 2, -1, 6}, [][]int32{{0, 1, 3}, {2, 4}, {6}}},
		{[]int32{3, 1, 3, 1}, [][]int32{{0, 2}, {1, 3}}}, // non-canonical labels still group
	}
	for _, tt := range tests {
		if got := Groups(tt.labels); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Groups(%v) = %v, want %v", tt.labels, got, tt.want)
		}
	}
}
