package community

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// clique returns the unit-weight edges of a complete graph on nodes.
func clique(nodes ...int32) []Edge {
	var out []Edge
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			out = append(out, Edge{a, b, 1})
		}
	}
	return out
}

// join concatenates edge lists.
func join(parts ...[]Edge) []Edge {
	var out []Edge
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestPropagate(t *testing.T) {
	tests := []struct {
		name      string
		n         int
		edges     []Edge
		opts      Options
		want      []int32
		maxSweeps int // the run must stop within this many sweeps
	}{
		{"empty", 0, nil, Options{}, []int32{}, 2},
		{"no edges", 3, nil, Options{}, []int32{0, 1, 2}, 2},
		{"two cliques joined by one edge", 10,
			join(clique(0, 1, 2, 3, 4), clique(5, 6, 7, 8, 9), []Edge{{2, 7, 1}}), Options{},
			[]int32{0, 0, 0, 0, 0, 5, 5, 5, 5, 5}, 4},
		// The bridge reaches the first node visited in the second clique while its clique-mates
		// still hold singleton labels. Plain propagation ties every label at weight 1 there and
		// merges the cliques; the embedded weights of the first phase keep them apart.
		{"bridge into the first visited node of a clique", 10,
			join(clique(0, 1, 2, 3, 4), clique(5, 6, 7, 8, 9), []Edge{{4, 5, 1}}), Options{},
			[]int32{0, 0, 0, 0, 0, 5, 5, 5, 5, 5}, 4},
		{"a bridge of many facts pulls its endpoint across", 10,
			join(clique(0, 1, 2, 3, 4), clique(5, 6, 7, 8, 9), []Edge{{4, 5, 9}}), Options{},
			[]int32{0, 0, 0, 0, 4, 4, 4, 4, 4, 4}, 4},
		{"parallel edges between two nodes", 2,
			[]Edge{{0, 1, 1}, {1, 0, 1}, {0, 1, 1}}, Options{}, []int32{0, 0}, 3},
		{"complete bipartite K3,3", 6,
			[]Edge{{0, 3, 1}, {0, 4, 1}, {0, 5, 1}, {1, 3, 1}, {1, 4, 1}, {1, 5, 1}, {2, 3, 1}, {2, 4, 1}, {2, 5, 1}},
			Options{}, []int32{0, 0, 0, 0, 0, 0}, 3},
		{"bipartite even cycle", 6,
			[]Edge{{0, 1, 1}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {4, 5, 1}, {5, 0, 1}},
			Options{}, []int32{0, 0, 0, 0, 0, 0}, 4},
		{"star with the centre first", 6,
			[]Edge{{0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 4, 1}, {0, 5, 1}}, Options{}, []int32{0, 0, 0, 0, 0, 0}, 3},
		{"star with the centre last", 6,
			[]Edge{{5, 0, 1}, {5, 1, 1}, {5, 2, 1}, {5, 3, 1}, {5, 4, 1}}, Options{}, []int32{0, 0, 0, 0, 0, 0}, 3},
		{"disconnected cliques and an isolated node", 11,
			join(clique(0, 1, 2), clique(3, 4, 5, 6), clique(7, 8, 9)), Options{},
			[]int32{0, 0, 0, 3, 3, 3, 3, 7, 7, 7, 10}, 3},
		{"min size", 11,
			join(clique(0, 1, 2), clique(3, 4, 5, 6), clique(7, 8, 9)), Options{MinSize: 4},
			[]int32{-1, -1, -1, 3, 3, 3, 3, -1, -1, -1, -1}, 3},
		{"equal weights: the smaller label wins the tie", 7,
			join(clique(0, 1, 2), clique(4, 5, 6), []Edge{{3, 0, 1}, {3, 5, 1}}), Options{},
			[]int32{0, 0, 0, 0, 4, 4, 4}, 3},
		{"a heavier edge wins", 7,
			join(clique(0, 1, 2), clique(4, 5, 6), []Edge{{3, 0, 1}, {3, 5, 3}}), Options{},
			[]int32{0, 0, 0, 3, 3, 3, 3}, 3},
		{"self-loops and non-positive weights ignored", 3,
			[]Edge{{0, 0, 9}, {1, 1, 9}, {0, 2, 0}, {1, 2, -3}, {0, 1, 1}}, Options{}, []int32{0, 0, 2}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sweeps := propagate(tt.n, tt.edges, tt.opts)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("labels = %v, want %v", got, tt.want)
			}
			if sweeps > tt.maxSweeps {
				t.Errorf("stopped after %d sweeps, want at most %d", sweeps, tt.maxSweeps)
			}
			if pub := Propagate(tt.n, tt.edges, tt.opts); !reflect.DeepEqual(pub, got) {
				t.Errorf("Propagate = %v, differs from propagate %v", pub, got)
			}
		})
	}
}

// TestPropagateTwoCliquesAnyBridge joins two cliques by one edge at every pair of positions,
// under several numberings of the nodes (one clique first, interleaved, scattered), and requires
// exactly the two cliques back each time.
func TestPropagateTwoCliquesAnyBridge(t *testing.T) {
	for _, size := range [][2]int{{3, 3}, {5, 5}, {4, 6}, {3, 8}} {
		n := size[0] + size[1]
		for _, order := range numberings(n) {
			a, b := order[:size[0]], order[size[0]:]
			for _, i := range a {
				for _, j := range b {
					edges := join(clique(a...), clique(b...), []Edge{{i, j, 1}})
					labels := Propagate(n, edges, Options{})
					if got, want := partition(labels), partition(twoLabels(n, a)); !reflect.DeepEqual(got, want) {
						t.Fatalf("cliques %v and %v, bridge %d–%d: communities %v", a, b, i, j, got)
					}
				}
			}
		}
	}
}

// numberings returns orders of the nodes 0..n-1: ascending, descending, interleaved (even ids
// first, so the two groups alternate) and three fixed scrambles.
func numberings(n int) [][]int32 {
	var out [][]int32
	asc, desc, inter := make([]int32, n), make([]int32, n), make([]int32, 0, n)
	for i := range n {
		asc[i], desc[i] = int32(i), int32(n-1-i)
	}
	for i := 0; i < n; i += 2 {
		inter = append(inter, int32(i))
	}
	for i := 1; i < n; i += 2 {
		inter = append(inter, int32(i))
	}
	out = append(out, asc, desc, inter)
	for _, step := range []int{3, 5, 7} {
		var s []int32
		for i := range n {
			s = append(s, int32((i*step+1)%n))
		}
		if len(uniq(s)) == n {
			out = append(out, s)
		}
	}
	return out
}

func uniq(xs []int32) []int32 { return slices.Compact(slices.Sorted(slices.Values(xs))) }

// twoLabels labels the nodes in a with 0 and every other node of 0..n-1 with 1.
func twoLabels(n int, a []int32) []int32 {
	labels := make([]int32, n)
	for i := range labels {
		labels[i] = 1
	}
	for _, u := range a {
		labels[u] = 0
	}
	return labels
}

// partition renders labels as the sorted list of their communities, ignoring label values.
func partition(labels []int32) string {
	var groups []string
	for _, g := range Groups(labels) {
		groups = append(groups, fmt.Sprint(g))
	}
	slices.Sort(groups)
	return fmt.Sprint(groups)
}
