package community

import (
	"fmt"
	"math"
	"slices"
)

// csr is an undirected weighted graph in compressed sparse row form: the neighbours of node u are
// nbr[off[u]:off[u+1]], in ascending order and without repeats, with the summed weights w of the
// edges between them. Every undirected edge appears once in each endpoint's row.
type csr struct {
	off []int64
	nbr []int32
	w   []float32
}

// buildCSR builds the adjacency of n nodes from edges: self-loops and edges whose weight is not
// positive (zero, negative, NaN) are dropped, parallel edges are summed. The result does not
// depend on the order of edges. It panics on an endpoint outside 0..n-1.
//
// Peak memory is 16 bytes per kept edge (two packed 8-byte arcs) plus 16 bytes per distinct
// neighbour pair for the result (two rows of int32+float32) plus 16 bytes per node.
func buildCSR(n int, edges []Edge) csr {
	off := make([]int64, n+1)
	for _, e := range edges {
		if e.A < 0 || int(e.A) >= n || e.B < 0 || int(e.B) >= n {
			panic(fmt.Sprintf("community: edge %d–%d outside nodes 0..%d", e.A, e.B, n-1))
		}
		if keep(e) {
			off[e.A+1]++
			off[e.B+1]++
		}
	}
	for u := range n {
		off[u+1] += off[u]
	}
	// Each arc is packed as neighbour<<32 | float32 bits of its weight: sorting a row sorts by
	// neighbour, and equal neighbours sort by weight, so the summing order is fixed.
	arcs := make([]uint64, off[n])
	next := slices.Clone(off[:n])
	for _, e := range edges {
		if keep(e) {
			bits := uint64(math.Float32bits(e.W))
			arcs[next[e.A]] = uint64(e.B)<<32 | bits
			next[e.A]++
			arcs[next[e.B]] = uint64(e.A)<<32 | bits
			next[e.B]++
		}
	}

	// Sort each row and merge repeated neighbours, compacting the rows in place towards the front
	// (the write position never passes the read position), then split into the final arrays.
	m := int64(0)
	for u := range n {
		row := arcs[off[u]:off[u+1]]
		slices.Sort(row)
		off[u] = m
		for i := 0; i < len(row); {
			v := row[i] >> 32
			sum := 0.0
			for ; i < len(row) && row[i]>>32 == v; i++ {
				sum += float64(math.Float32frombits(uint32(row[i])))
			}
			arcs[m] = v<<32 | uint64(math.Float32bits(float32(min(sum, math.MaxFloat32))))
			m++
		}
	}
	off[n] = m
	g := csr{off: off, nbr: make([]int32, m), w: make([]float32, m)}
	for i, a := range arcs[:m] {
		g.nbr[i] = int32(a >> 32)
		g.w[i] = math.Float32frombits(uint32(a))
	}
	return g
}

// keep reports whether an edge counts: not a self-loop and with a positive weight.
func keep(e Edge) bool { return e.A != e.B && e.W > 0 }
