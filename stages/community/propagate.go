package community

import (
	"fmt"
	"math"
)

// Edge is an undirected weighted edge between nodes A and B. Parallel edges are summed,
// self-loops and edges with a weight that is not positive are ignored.
type Edge struct {
	A, B int32
	W    float32
}

// Options tunes Propagate. The zero value means the defaults.
type Options struct {
	MaxIterations int // sweeps before stopping even if labels still change; ≤ 0 means 100
	MinSize       int // communities with fewer members get label -1; ≤ 0 means 1
}

// Defaults of Options.
const (
	DefaultMaxIterations = 100
	DefaultMinSize       = 1
)

// Propagate runs full label propagation on the undirected weighted graph of n nodes (0..n-1) and
// returns each node's community label.
//
// Every node starts with its own label. Each sweep visits the nodes in ascending id order and
// updates them in place (asynchronously): a node adopts the label with the largest summed edge
// weight among its neighbours, keeping its current label when that label is among the best and
// taking the smallest best label otherwise; a node without neighbours keeps its label. It stops
// after a sweep that changes nothing or after MaxIterations sweeps. Each change strictly raises
// the total weight of edges inside communities, so it converges (no oscillation as in synchronous
// propagation), and the cap bounds it regardless.
//
// Labels are canonical: a community's label is the smallest node id in it, and members of
// communities smaller than MinSize get -1. The result depends only on n, the multiset of edges
// and the options, not on the order of edges. It panics when an endpoint is outside 0..n-1 or n
// does not fit in an int32.
func Propagate(n int, edges []Edge, opts Options) []int32 {
	labels, _ := propagate(n, edges, opts)
	return labels
}

// propagate is Propagate that also returns the number of sweeps run.
func propagate(n int, edges []Edge, opts Options) ([]int32, int) {
	if n < 0 || n > math.MaxInt32 {
		panic(fmt.Sprintf("community: node count %d out of range", n))
	}
	maxIter := opts.MaxIterations
	if maxIter <= 0 {
		maxIter = DefaultMaxIterations
	}
	g := buildCSR(n, edges)
	labels := make([]int32, n)
	for u := range labels {
		labels[u] = int32(u)
	}
	acc := make([]float64, n) // summed weight per label for the current node, zero between nodes
	var seen []int32          // labels with a non-zero entry in acc
	sweeps := 0
	for sweeps < maxIter {
		sweeps++
		changed := false
		for u := range n {
			row := g.nbr[g.off[u]:g.off[u+1]]
			if len(row) == 0 {
				continue
			}
			ws := g.w[g.off[u]:g.off[u+1]]
			seen = seen[:0]
			for i, v := range row { // ascending neighbours: a fixed summing order
				l := labels[v]
				if acc[l] == 0 {
					seen = append(seen, l)
				}
				acc[l] += float64(ws[i])
			}
			cur := labels[u]
			best, bestW := cur, acc[cur]
			for _, l := range seen {
				if w := acc[l]; w > bestW || (w == bestW && best != cur && l < best) {
					best, bestW = l, w
				}
				acc[l] = 0
			}
			if best != cur {
				labels[u] = best
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	canonicalize(labels, opts.MinSize)
	return labels, sweeps
}
