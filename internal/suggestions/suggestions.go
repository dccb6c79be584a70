package suggestions

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Distance is the edit distance between a and b in runes: insertions, deletions, substitutions
// and transpositions of neighbours ("modle" → "model") each count 1 (optimal string alignment).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		pp, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, pp
	}
	return rows[1][len(rb)]
}

// Near returns the candidate a mistyped want most likely meant: the nearest one within an edit
// distance of a third of want's length (at least 1, at most 3), or "" when none is that near.
func Near(want string, candidates []string) string {
	limit := min(max(utf8.RuneCountInString(want)/3, 1), 3)
	best, bestD := "", limit+1
	w := strings.ToLower(want)
	for _, c := range candidates {
		if d := Distance(w, strings.ToLower(c)); d < bestD || d == bestD && best != "" && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// Nearest keeps the n names nearest to want among those added one at a time, in bounded memory
// (for streams of names such as a group's entities).
type Nearest struct {
	want string
	n    int
	top  []scored // ascending by rank, at most n, names distinct
}

type scored struct {
	name     string
	contains bool // one of the two case-folded names contains the other
	dist     int
}

// less orders by containment, then distance, then name.
func (a scored) less(b scored) bool {
	if a.contains != b.contains {
		return a.contains
	}
	if a.dist != b.dist {
		return a.dist < b.dist
	}
	return a.name < b.name
}

// NewNearest returns an empty Nearest for want keeping n names.
func NewNearest(want string, n int) *Nearest {
	return &Nearest{want: strings.ToLower(want), n: n}
}

// Add considers one candidate name.
func (r *Nearest) Add(name string) {
	if r.n <= 0 || slices.ContainsFunc(r.top, func(s scored) bool { return s.name == name }) {
		return
	}
	c := strings.ToLower(name)
	s := scored{name: name, contains: strings.Contains(c, r.want) || strings.Contains(r.want, c), dist: Distance(r.want, c)}
	if len(r.top) == r.n && !s.less(r.top[len(r.top)-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(r.top, s, func(a, b scored) int {
		if a.less(b) {
			return -1
		}
		return 1
	})
	r.top = slices.Insert(r.top, i, s)
	if len(r.top) > r.n {
		r.top = r.top[:r.n]
	}
}

// Names returns the names kept, nearest first.
func (r *Nearest) Names() []string {
	out := make([]string, len(r.top))
	for i, s := range r.top {
		out[i] = s.name
	}
	return out
}
