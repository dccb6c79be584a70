package community

// sweeper holds the state of label propagation on one graph: the labels, the edge weights the
// current phase votes with, and scratch space. Labels are node ids (0..n-1), so per-label arrays
// are plain slices.
//
// A node is visited only when it is active: at the start, or when a neighbour's label changed
// since its last visit. A node none of whose neighbours changed would keep its label anyway, so
// skipping it changes nothing but the time: late sweeps touch only the few unsettled nodes.
type sweeper struct {
	g      csr
	w      []float32 // weight of each arc of g in this phase
	labels []int32
	active []bool
	acc    []float64 // summed weight per label for the current node, zero between nodes
	seen   []int32   // labels with an entry in acc for the current node
}

// newSweeper starts a phase on g voting with the arc weights w from the given labels (each in
// 0..n-1); the sweeper updates labels in place.
func newSweeper(g csr, w []float32, labels []int32) *sweeper {
	active := make([]bool, len(labels))
	for u := range active {
		active[u] = true
	}
	return &sweeper{g: g, w: w, labels: labels, active: active, acc: make([]float64, len(labels))}
}

// identity returns the labels 0..n-1.
func identity(n int) []int32 {
	labels := make([]int32, n)
	for u := range labels {
		labels[u] = int32(u)
	}
	return labels
}

// run sweeps until a sweep changes nothing or the budget of sweeps is spent, taking one from
// *budget per sweep.
func (s *sweeper) run(budget *int) {
	for *budget > 0 {
		*budget--
		if !s.sweep() {
			return
		}
	}
}

// sweep visits every node once in ascending order and reports whether any label changed.
func (s *sweeper) sweep() bool {
	changed := false
	for u := range s.labels {
		if s.visit(int32(u)) {
			changed = true
		}
	}
	return changed
}

// visit gives node u the label with the largest summed weight among its neighbours, keeping its
// own label when that is among the best and taking the smallest best label otherwise, and
// reports whether the label changed. A node without neighbours keeps its label. When the label
// changes, the neighbours become active.
func (s *sweeper) visit(u int32) bool {
	if !s.active[u] {
		return false
	}
	s.active[u] = false
	lo, hi := s.g.off[u], s.g.off[u+1]
	if lo == hi {
		return false
	}
	s.seen = s.seen[:0]
	for i := lo; i < hi; i++ { // ascending neighbours: a fixed summing order
		l := s.labels[s.g.nbr[i]]
		if s.acc[l] == 0 {
			s.seen = append(s.seen, l)
		}
		s.acc[l] += float64(s.w[i])
	}
	cur := s.labels[u]
	best, bestW := cur, s.acc[cur]
	for _, l := range s.seen {
		if w := s.acc[l]; w > bestW || (w == bestW && best != cur && l < best) {
			best, bestW = l, w
		}
		s.acc[l] = 0
	}
	if best == cur {
		return false
	}
	s.labels[u] = best
	for _, v := range s.g.nbr[lo:hi] {
		s.active[v] = true
	}
	return true
}
