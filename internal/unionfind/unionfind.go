package unionfind

import "math"

// Forest is a disjoint-set forest over the ids 0..n-1 with path compression and union by rank.
// The representative reported by Find is always the smallest id of the set, independent of the
// order of unions, so with ids in mention order the earliest mention names the set.
// Ids out of range panic. A Forest is not safe for concurrent use.
type Forest struct {
	parent []int32 // parent in the forest; a root is its own parent
	rank   []uint8 // upper bound of the tree height, meaningful for roots
	min    []int32 // smallest id of the set, meaningful for roots
	sets   int     // number of disjoint sets
}

// New returns n singleton sets {0}, {1}, …, {n-1}. It panics when n is negative or does
// not fit in an int32.
func New(n int) *Forest {
	if n < 0 || n > math.MaxInt32 {
		panic("unionfind: New: size out of range")
	}
	u := &Forest{parent: make([]int32, n), rank: make([]uint8, n), min: make([]int32, n), sets: n}
	for i := range u.parent {
		u.parent[i] = int32(i)
		u.min[i] = int32(i)
	}
	return u
}

// Len returns the number of ids.
func (u *Forest) Len() int { return len(u.parent) }

// Sets returns the number of disjoint sets.
func (u *Forest) Sets() int { return u.sets }

// root returns the forest root of a, compressing the path from a to it.
func (u *Forest) root(a int) int32 {
	r := int32(a)
	for u.parent[r] != r {
		r = u.parent[r]
	}
	for x := int32(a); u.parent[x] != r; {
		next := u.parent[x]
		u.parent[x] = r
		x = next
	}
	return r
}

// Find returns the representative of a's set: its smallest id.
func (u *Forest) Find(a int) int { return int(u.min[u.root(a)]) }

// Same reports whether a and b are in the same set.
func (u *Forest) Same(a, b int) bool { return u.root(a) == u.root(b) }

// Union merges the sets of a and b and reports whether they were distinct.
func (u *Forest) Union(a, b int) bool {
	ra, rb := u.root(a), u.root(b)
	if ra == rb {
		return false
	}
	if u.rank[ra] < u.rank[rb] {
		ra, rb = rb, ra
	}
	u.parent[rb] = ra
	if u.rank[ra] == u.rank[rb] {
		u.rank[ra]++
	}
	u.min[ra] = min(u.min[ra], u.min[rb])
	u.sets--
	return true
}

// Groups returns every set (singletons included) as its sorted ids, the sets ordered by their
// smallest id.
func (u *Forest) Groups() [][]int {
	n := len(u.parent)
	slot := make([]int32, n) // root → index in out, -1 when not yet seen
	for i := range slot {
		slot[i] = -1
	}
	out := make([][]int, 0, u.sets)
	for i := range n { // ascending ids: groups appear by smallest id, members come sorted
		r := u.root(i)
		if slot[r] < 0 {
			slot[r] = int32(len(out))
			out = append(out, nil)
		}
		out[slot[r]] = append(out[slot[r]], i)
	}
	return out
}
