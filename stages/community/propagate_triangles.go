package community

import "sort"

// embeddedWeights returns the weights of g's arcs for the first phase: an edge whose endpoints
// share at least one neighbour (it lies in a triangle) counts double, an edge that closes no
// triangle keeps its weight. Such an edge is how a bridge between two groups looks, so in the
// first phase it cannot carry a label against the edges inside a group.
//
// Triangles are found with the forward algorithm: nodes are ranked by (degree, id), each edge is
// kept once, from its lower-ranked end, and each pair of kept edges u→v, u→x is checked for the
// edge v→x. That is O(m·√m) in the worst case and much less on sparse graphs, and a hub costs no
// more than its degree, since it ranks last and keeps no edges of its own.
func embeddedWeights(g csr) []float32 {
	n := len(g.off) - 1
	fwd := forwardArcs(g)
	inTriangle := make([]bool, len(fwd.nbr)) // per kept edge
	mark := make([]int64, n)                 // node x → index+1 of the kept edge u→x of the current u
	for u := range n {
		for a := fwd.off[u]; a < fwd.off[u+1]; a++ {
			mark[fwd.nbr[a]] = a + 1
		}
		for a := fwd.off[u]; a < fwd.off[u+1]; a++ {
			v := fwd.nbr[a]
			for b := fwd.off[v]; b < fwd.off[v+1]; b++ {
				if c := mark[fwd.nbr[b]]; c != 0 {
					inTriangle[a], inTriangle[b], inTriangle[c-1] = true, true, true
				}
			}
		}
		for a := fwd.off[u]; a < fwd.off[u+1]; a++ {
			mark[fwd.nbr[a]] = 0
		}
	}
	w := append([]float32(nil), g.w...)
	for u := range n {
		for a := fwd.off[u]; a < fwd.off[u+1]; a++ {
			if !inTriangle[a] {
				continue
			}
			v := fwd.nbr[a]
			w[fwd.arc[a]] *= 2
			row := g.nbr[g.off[v]:g.off[v+1]] // the reverse arc v→u: rows are sorted
			w[g.off[v]+int64(sort.Search(len(row), func(i int) bool { return row[i] >= int32(u) }))] *= 2
		}
	}
	return w
}

// forward holds each undirected edge of a csr once, at its lower-ranked end: the kept
// neighbours of u are nbr[off[u]:off[u+1]] and arc gives the index of each edge in g's arrays.
type forward struct {
	off []int64
	nbr []int32
	arc []int64
}

// forwardArcs builds the forward lists of g under the rank order (degree, id).
func forwardArcs(g csr) forward {
	n := len(g.off) - 1
	before := func(u, v int32) bool {
		du, dv := g.off[u+1]-g.off[u], g.off[v+1]-g.off[v]
		return du < dv || (du == dv && u < v)
	}
	f := forward{off: make([]int64, n+1)}
	for u := range n {
		f.off[u+1] = f.off[u]
		for _, v := range g.nbr[g.off[u]:g.off[u+1]] {
			if before(int32(u), v) {
				f.off[u+1]++
			}
		}
	}
	f.nbr, f.arc = make([]int32, f.off[n]), make([]int64, f.off[n])
	for u := range n {
		k := f.off[u]
		for i := g.off[u]; i < g.off[u+1]; i++ {
			if v := g.nbr[i]; before(int32(u), v) {
				f.nbr[k], f.arc[k] = v, i
				k++
			}
		}
	}
	return f
}
