package community

import (
	"math"
	"reflect"
	"testing"
)

func TestBuildCSR(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
		want  csr
	}{
		{"empty", 2, nil, csr{off: []int64{0, 0, 0}, nbr: []int32{}, w: []float32{}}},
		{"both directions", 3, []Edge{{0, 2, 1.5}},
			csr{off: []int64{0, 1, 1, 2}, nbr: []int32{2, 0}, w: []float32{1.5, 1.5}}},
		{"parallel edges summed, rows sorted", 3, []Edge{{2, 0, 1}, {0, 1, 2}, {0, 2, 0.5}, {1, 0, 1}},
			csr{off: []int64{0, 2, 3, 4}, nbr: []int32{1, 2, 0, 0}, w: []float32{3, 1.5, 3, 1.5}}},
		{"dropped edges", 2, []Edge{{0, 0, 1}, {0, 1, 0}, {1, 0, -1}, {0, 1, float32(math.NaN())}},
			csr{off: []int64{0, 0, 0}, nbr: []int32{}, w: []float32{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildCSR(tt.n, tt.edges); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("buildCSR = %+v, want %+v", got, tt.want)
			}
		})
	}
}
