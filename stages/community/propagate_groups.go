package community

// canonicalize relabels labels in place: each community gets the smallest node id in it, and
// members of communities with fewer than minSize nodes (≤ 0 means DefaultMinSize) get -1.
func canonicalize(labels []int32, minSize int) {
	if minSize <= 0 {
		minSize = DefaultMinSize
	}
	n := len(labels)
	first := make([]int32, n) // old label → smallest member, -1 when not yet seen
	for i := range first {
		first[i] = -1
	}
	for u, l := range labels { // ascending u: the first member seen is the smallest
		if first[l] < 0 {
			first[l] = int32(u)
		}
		labels[u] = first[l]
	}
	if minSize <= 1 {
		return
	}
	size := first // reused: canonical label → member count
	clear(size)
	for _, l := range labels {
		size[l]++
	}
	for u, l := range labels {
		if int(size[l]) < minSize {
			labels[u] = -1
		}
	}
}

// Groups returns the members of each community of labels (as returned by Propagate), sorted,
// the communities ordered by their smallest member. Nodes labelled -1 belong to no group.
func Groups(labels []int32) [][]int32 {
	slot := make(map[int32]int) // label → index in out
	var out [][]int32
	for u, l := range labels { // ascending u: groups appear by smallest member, members sorted
		if l < 0 {
			continue
		}
		i, ok := slot[l]
		if !ok {
			i = len(out)
			slot[l] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], int32(u))
	}
	return out
}
