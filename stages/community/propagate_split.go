package community

// splitDisconnected relabels in place every node with the smallest id of its connected piece of
// its community, so that a community that fell apart becomes one community per piece. It walks
// the graph with an explicit stack.
func splitDisconnected(g csr, labels []int32) {
	n := len(labels)
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	var stack []int32
	for s := range n { // ascending start nodes: each piece is named by its smallest node
		if out[s] >= 0 {
			continue
		}
		out[s] = int32(s)
		stack = append(stack[:0], int32(s))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, v := range g.nbr[g.off[u]:g.off[u+1]] {
				if out[v] < 0 && labels[v] == labels[u] {
					out[v] = int32(s)
					stack = append(stack, v)
				}
			}
		}
	}
	copy(labels, out)
}
