package graphdiff

import (
	"cmp"
	"maps"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// CommunityChange is a community whose membership changed.
type CommunityChange struct {
	Kind    string   `json:"kind"` // changed | added | removed
	A       string   `json:"a,omitempty"`
	B       string   `json:"b,omitempty"`
	Jaccard float64  `json:"jaccard"` // of the member sets, A's mapped to B's entities
	Joined  []string `json:"joined,omitempty"`
	Left    []string `json:"left,omitempty"`
}

// diffCommunities pairs communities one to one by the Jaccard similarity of their members (A's
// mapped through the entity match), highest first; pairs with equal members are unchanged.
func diffCommunities(a, b *side, m *entityMatch) []CommunityChange {
	type cand struct {
		i, j int
		jac  float64
	}
	members := func(c graph.Community, mapped bool) map[string]bool {
		out := map[string]bool{}
		for _, x := range c.Members {
			if mapped {
				if y, ok := m.toB[x]; ok {
					x = y
				}
			}
			out[x] = true
		}
		return out
	}
	as := make([]map[string]bool, len(a.g.Communities))
	for i, c := range a.g.Communities {
		as[i] = members(c, true)
	}
	bs := make([]map[string]bool, len(b.g.Communities))
	for j, c := range b.g.Communities {
		bs[j] = members(c, false)
	}
	var cands []cand
	for i := range as {
		for j := range bs {
			if jac := jaccard(as[i], bs[j]); jac > 0 {
				cands = append(cands, cand{i, j, jac})
			}
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		return cmp.Or(cmp.Compare(y.jac, x.jac), cmp.Compare(x.i, y.i), cmp.Compare(x.j, y.j))
	})
	usedA, usedB := make([]bool, len(as)), make([]bool, len(bs))
	var out []CommunityChange
	for _, c := range cands {
		if usedA[c.i] || usedB[c.j] {
			continue
		}
		usedA[c.i], usedB[c.j] = true, true
		if c.jac == 1 {
			continue
		}
		ch := CommunityChange{Kind: "changed", A: a.g.Communities[c.i].Name, B: b.g.Communities[c.j].Name, Jaccard: c.jac}
		for _, x := range slices.Sorted(maps.Keys(bs[c.j])) {
			if !as[c.i][x] {
				ch.Joined = append(ch.Joined, b.name(x))
			}
		}
		for _, x := range slices.Sorted(maps.Keys(as[c.i])) {
			if !bs[c.j][x] {
				ch.Left = append(ch.Left, b.nameOr(x, a))
			}
		}
		out = append(out, ch)
	}
	for i, c := range a.g.Communities {
		if !usedA[i] {
			out = append(out, CommunityChange{Kind: "removed", A: c.Name})
		}
	}
	for j, c := range b.g.Communities {
		if !usedB[j] {
			out = append(out, CommunityChange{Kind: "added", B: c.Name})
		}
	}
	return out
}

// nameOr is the name of a B entity, or of the A entity with that uuid.
func (s *side) nameOr(id string, other *side) string {
	if e, ok := s.byID[id]; ok {
		return e.Name
	}
	return other.name(id)
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for x := range a {
		if b[x] {
			inter++
		}
	}
	if union := len(a) + len(b) - inter; union > 0 {
		return float64(inter) / float64(union)
	}
	return 0
}
