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
	MaxIterations int // sweeps of both phases together before stopping; ≤ 0 means 100
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
// taking the smallest best label otherwise; a node without neighbours keeps its label.
//
// It runs in two phases. The first votes with embedded weights: an edge that lies in a triangle
// (its endpoints share a neighbour) counts double, so an edge that closes no triangle — what a
// bridge between two groups looks like — cannot pull a node whose other neighbours have not
// settled yet into a neighbouring group (plain propagation merges two cliques joined by one edge
// when the bridge reaches the first node visited in the second clique). The second phase starts
// from the first one's labels and votes with the given weights, so the result is a fixed point
// of plain label propagation on them. A phase ends after a sweep that changes nothing. Every
// change strictly raises the total weight of the phase's edges inside communities, so each phase
// converges (no oscillation as in synchronous propagation), and MaxIterations bounds the sweeps
// of both phases together regardless. Finally a community whose members are not connected
// among themselves is split into its connected pieces.
//
// Labels are canonical: a community's label is the smallest node id in it, and members of
// communities smaller than MinSize get -1. The result depends only on n, the multiset of edges
// and the options, not on the order of edges. It does depend on the numbering of the nodes
// (visiting order, ties), so callers number nodes canonically: the stage numbers entities in
// uuid order. It panics when an endpoint is outside 0..n-1 or n does not fit in
// an int32.
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
	labels := identity(n)
	budget := maxIter
	newSweeper(g, embeddedWeights(g), labels).run(&budget)
	newSweeper(g, g.w, labels).run(&budget)
	splitDisconnected(g, labels)
	canonicalize(labels, opts.MinSize)
	return labels, maxIter - budget
}
