package graphdiff

import (
	"maps"
	"slices"
)

// moves follows the mentions of the A entities still unmatched: the B entity that newly
// appears in most of their episodes is where they went. Several A entities going to one B
// entity, or one going to an entity that already has a counterpart, is a merge; one A entity
// going alone to an unmatched B entity is a rename with a new id. B entities still unmatched
// that took mentions from a matched A entity are a split of it.
func (m *entityMatch) moves(a, b *side, pair func(x, y string)) {
	into := map[string][]string{} // B uuid → A uuids whose mentions went there
	moved := map[string][]string{}
	for _, e := range a.g.Entities {
		if _, ok := m.toB[e.UUID]; ok {
			continue
		}
		dest, eps := m.destination(e.UUID, a, b)
		if dest == "" {
			m.changes = append(m.changes, EntityChange{Kind: "removed", A: []string{e.Name}, Episodes: first(a.mentions[e.UUID])})
			continue
		}
		into[dest] = append(into[dest], e.UUID)
		moved[dest] = append(moved[dest], eps...)
	}
	for _, dest := range slices.Sorted(maps.Keys(into)) {
		srcs := into[dest]
		if len(srcs) == 1 && !m.fromB[dest] {
			pair(srcs[0], dest)
			m.renamed[dest] = true
			m.changes = append(m.changes, EntityChange{Kind: "renamed", A: []string{a.name(srcs[0])}, B: []string{b.name(dest)},
				Episodes: first(moved[dest])})
			continue
		}
		ch := EntityChange{Kind: "merged", B: []string{b.name(dest)}, Episodes: first(moved[dest])}
		if x, ok := m.pairedB[dest]; ok {
			ch.A = append(ch.A, a.name(x))
		}
		for _, x := range srcs {
			m.toB[x] = dest
			ch.A = append(ch.A, a.name(x))
		}
		m.fromB[dest] = true
		m.changes = append(m.changes, ch)
	}
	m.splits(a, b)
}

// destination is the B entity that appears in most of the episodes of A entity x without
// being the counterpart of another A entity of that episode, with those episodes.
func (m *entityMatch) destination(x string, a, b *side) (string, []string) {
	count := map[string]int{}
	eps := map[string][]string{}
	for _, ep := range a.mentions[x] {
		present := map[string]bool{}
		for y := range a.inEp[ep] {
			if z, ok := m.toB[y]; ok && y != x {
				present[z] = true
			}
		}
		for z := range b.inEp[ep] {
			if !present[z] {
				count[z]++
				eps[z] = append(eps[z], ep)
			}
		}
	}
	best := ""
	for _, z := range slices.Sorted(maps.Keys(count)) {
		if best == "" || count[z] > count[best] {
			best = z
		}
	}
	return best, eps[best]
}

// splits reports the B entities without a counterpart that took mentions from a matched A
// entity (mentions of it in A whose episode no longer mentions its counterpart), and the rest
// as added.
func (m *entityMatch) splits(a, b *side) {
	from := map[string][]string{} // A uuid → B uuids split from it
	moved := map[string][]string{}
	for _, e := range b.g.Entities {
		if m.fromB[e.UUID] {
			continue
		}
		src, eps := "", []string(nil)
		count := map[string]int{}
		epsOf := map[string][]string{}
		for _, ep := range b.mentions[e.UUID] {
			for x := range a.inEp[ep] {
				if z, ok := m.toB[x]; ok && !b.inEp[ep][z] {
					count[x]++
					epsOf[x] = append(epsOf[x], ep)
				}
			}
		}
		for _, x := range slices.Sorted(maps.Keys(count)) {
			if src == "" || count[x] > count[src] {
				src = x
			}
		}
		if src == "" {
			m.changes = append(m.changes, EntityChange{Kind: "added", B: []string{e.Name}, Episodes: first(b.mentions[e.UUID])})
			continue
		}
		eps = epsOf[src]
		from[src] = append(from[src], e.UUID)
		moved[src] = append(moved[src], eps...)
	}
	for _, x := range slices.Sorted(maps.Keys(from)) {
		ch := EntityChange{Kind: "split", A: []string{a.name(x)}, B: []string{b.name(m.toB[x])}, Episodes: first(moved[x])}
		for _, y := range from[x] {
			ch.B = append(ch.B, b.name(y))
		}
		m.changes = append(m.changes, ch)
	}
}
