package unionfind

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestForest(t *testing.T) {
	tests := []struct {
		name       string
		n          int
		unions     [][2]int
		wantGroups [][]int
	}{
		{"empty", 0, nil, [][]int{}},
		{"singletons", 3, nil, [][]int{{0}, {1}, {2}}},
		{"chain", 4, [][2]int{{3, 2}, {2, 1}, {1, 0}}, [][]int{{0, 1, 2, 3}}},
		{"two sets", 6, [][2]int{{5, 3}, {4, 1}, {3, 1}, {2, 0}}, [][]int{{0, 2}, {1, 3, 4, 5}}},
		{"repeated union", 3, [][2]int{{2, 1}, {1, 2}, {2, 2}}, [][]int{{0}, {1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := New(tt.n)
			for _, p := range tt.unions {
				u.Union(p[0], p[1])
			}
			got := u.Groups()
			if !reflect.DeepEqual(got, tt.wantGroups) {
				t.Fatalf("Groups() = %v, want %v", got, tt.wantGroups)
			}
			if u.Sets() != len(tt.wantGroups) {
				t.Errorf("Sets() = %d, want %d", u.Sets(), len(tt.wantGroups))
			}
			for _, g := range got {
				for _, x := range g {
					if f := u.Find(x); f != g[0] {
						t.Errorf("Find(%d) = %d, want the smallest id %d", x, f, g[0])
					}
				}
			}
		})
	}
}

func TestForestUnionReportsMerge(t *testing.T) {
	u := New(3)
	if !u.Union(0, 1) {
		t.Error("Union(0,1) of distinct sets = false")
	}
	if u.Union(1, 0) {
		t.Error("Union(1,0) of one set = true")
	}
	if !u.Same(0, 1) || u.Same(0, 2) {
		t.Error("Same disagrees with the unions")
	}
}

// TestForestMatchesNaive checks random unions against a naive labelling: the representative is
// the smallest id whatever the union order, so shuffled unions give identical results.
func TestForestMatchesNaive(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int, 400)
	for i := range pairs {
		pairs[i] = [2]int{rng.IntN(n), rng.IntN(n)}
	}
	label := make([]int, n) // naive: relabel the whole set on every union
	for i := range label {
		label[i] = i
	}
	for _, p := range pairs {
		a, b := label[p[0]], label[p[1]]
		lo, hi := min(a, b), max(a, b)
		for i := range label {
			if label[i] == hi {
				label[i] = lo
			}
		}
	}
	for trial := range 3 {
		rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		u := New(n)
		for _, p := range pairs {
			if trial%2 == 0 {
				u.Union(p[0], p[1])
			} else {
				u.Union(p[1], p[0])
			}
		}
		for i := range n {
			if got := u.Find(i); got != label[i] {
				t.Fatalf("trial %d: Find(%d) = %d, want %d", trial, i, got, label[i])
			}
		}
	}
}

func TestNewPanicsOnNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New(-1) did not panic")
		}
	}()
	New(-1)
}
