package community

import (
	"reflect"
	"slices"
	"testing"
)

// TestPropagateOscillating runs graphs on which synchronous propagation (every node updated from
// the previous sweep's labels) cycles forever, and requires the asynchronous run to stop at a
// fixed point within a few sweeps.
func TestPropagateOscillating(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		edges []Edge
	}{
		{"two nodes joined by several facts", 2, []Edge{{0, 1, 1}, {1, 0, 1}, {0, 1, 1}}},
		{"complete bipartite K3,3", 6, []Edge{{0, 3, 1}, {0, 4, 1}, {0, 5, 1}, {1, 3, 1}, {1, 4, 1},
			{1, 5, 1}, {2, 3, 1}, {2, 4, 1}, {2, 5, 1}}},
		{"complete bipartite K2,4 with weights", 6, []Edge{{0, 2, 2}, {0, 3, 1}, {0, 4, 1}, {0, 5, 1},
			{1, 2, 1}, {1, 3, 2}, {1, 4, 1}, {1, 5, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := buildCSR(tt.n, tt.edges)
			if !synchronousCycles(g, 20) {
				t.Fatal("synchronous propagation settles on this graph; the test needs one where it cycles")
			}
			labels, sweeps := propagate(tt.n, tt.edges, Options{})
			if sweeps > 4 {
				t.Errorf("took %d sweeps", sweeps)
			}
			if len(Groups(labels)) != 1 {
				t.Errorf("labels %v, want one community", labels)
			}
		})
	}
}

// synchronousCycles runs synchronous propagation with the same vote and tie rule from singleton
// labels and reports whether it revisits an earlier labelling, other than the last one, within
// the given number of steps.
func synchronousCycles(g csr, steps int) bool {
	history := [][]int32{identity(len(g.off) - 1)}
	for range steps {
		prev := history[len(history)-1]
		next := synchronousStep(g, prev)
		if reflect.DeepEqual(prev, next) {
			return false
		}
		for _, h := range history {
			if reflect.DeepEqual(h, next) {
				return true
			}
		}
		history = append(history, next)
	}
	return false
}

// synchronousStep updates every node from the labels prev of the previous step.
func synchronousStep(g csr, prev []int32) []int32 {
	next := make([]int32, len(prev))
	for u := range prev {
		s := newSweeper(g, g.w, slices.Clone(prev))
		s.visit(int32(u))
		next[u] = s.labels[u]
	}
	return next
}
