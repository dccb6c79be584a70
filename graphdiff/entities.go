package graphdiff

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/snapshots"
	"github.com/tkgraph/backfill/stages/resolve"
)

// EntityChange is one entity-level change of a group.
type EntityChange struct {
	Kind string `json:"kind"` // added | removed | renamed | merged | split | labels | summary
	// A and B name the entity on each side ("" when it has none): for merged, the B entity and
	// the A entities merged into it; for split, the A entity and the B entities its mentions
	// went to.
	A []string `json:"a,omitempty"`
	B []string `json:"b,omitempty"`
	// Episodes are the episodes whose mention moved (merged, split, a rename with a new id),
	// or that mention the entity (added, removed), at most maxEpisodes.
	Episodes []string `json:"episodes,omitempty"`
	Before   string   `json:"before,omitempty"` // labels or summary in A
	After    string   `json:"after,omitempty"`  // labels or summary in B
}

// maxEpisodes bounds EntityChange.Episodes.
const maxEpisodes = 5

// side is one group's graph, indexed for matching.
type side struct {
	g        *snapshots.Group
	byID     map[string]*graph.Entity
	mentions map[string][]string        // entity uuid → episode uuids, in mention order
	inEp     map[string]map[string]bool // episode uuid → entity uuids it mentions
	episode  map[string]*graph.Episode
}

func newSide(g *snapshots.Group) *side {
	s := &side{g: g, byID: map[string]*graph.Entity{}, mentions: map[string][]string{}, inEp: map[string]map[string]bool{},
		episode: map[string]*graph.Episode{}}
	if g == nil {
		s.g = &snapshots.Group{}
		return s
	}
	for i := range g.Entities {
		s.byID[g.Entities[i].UUID] = &g.Entities[i]
	}
	for _, m := range g.Mentions {
		s.mentions[m.EntityUUID] = append(s.mentions[m.EntityUUID], m.EpisodeUUID)
		if s.inEp[m.EpisodeUUID] == nil {
			s.inEp[m.EpisodeUUID] = map[string]bool{}
		}
		s.inEp[m.EpisodeUUID][m.EntityUUID] = true
	}
	for i := range g.Episodes {
		s.episode[g.Episodes[i].UUID] = &g.Episodes[i]
	}
	return s
}

func (s *side) name(id string) string {
	if e, ok := s.byID[id]; ok {
		return e.Name
	}
	return id
}

// entityMatch maps A entities to B entities: by uuid, then by normalised name among the
// unmatched, then through moved mentions (a rename with a new id, or a merge).
type entityMatch struct {
	toB     map[string]string // A uuid → B uuid, for every A entity that has a counterpart
	fromB   map[string]bool   // B uuids that are some A entity's counterpart
	pairedB map[string]string // B uuid → A uuid, for the one-to-one matches (uuid, name, rename)
	renamed map[string]bool   // B uuids already reported as a rename with a new id
	changes []EntityChange
}

func matchEntities(a, b *side) *entityMatch {
	m := &entityMatch{toB: map[string]string{}, fromB: map[string]bool{}, pairedB: map[string]string{}, renamed: map[string]bool{}}
	pair := func(x, y string) {
		m.toB[x], m.fromB[y], m.pairedB[y] = y, true, x
	}
	for _, e := range a.g.Entities {
		if _, ok := b.byID[e.UUID]; ok {
			pair(e.UUID, e.UUID)
		}
	}
	byName := map[string][]string{} // normalised name → unmatched B uuids, in uuid order
	for _, e := range b.g.Entities {
		if !m.fromB[e.UUID] {
			k := resolve.Normalize(e.Name)
			byName[k] = append(byName[k], e.UUID)
		}
	}
	for _, e := range a.g.Entities {
		if _, ok := m.toB[e.UUID]; ok {
			continue
		}
		k := resolve.Normalize(e.Name)
		if ys := byName[k]; len(ys) > 0 {
			pair(e.UUID, ys[0])
			byName[k] = ys[1:]
		}
	}
	m.moves(a, b, pair)
	m.compare(a, b)
	return m
}

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

// compare reports renames, label and summary changes of the one-to-one matches.
func (m *entityMatch) compare(a, b *side) {
	for _, e := range a.g.Entities {
		y, ok := m.toB[e.UUID]
		if !ok || m.pairedB[y] != e.UUID {
			continue
		}
		f := b.byID[y]
		if e.Name != f.Name && !m.renamed[y] {
			m.changes = append(m.changes, EntityChange{Kind: "renamed", A: []string{e.Name}, B: []string{f.Name}})
		}
		if !slices.Equal(e.Labels, f.Labels) {
			m.changes = append(m.changes, EntityChange{Kind: "labels", A: []string{e.Name}, B: []string{f.Name},
				Before: joinOr(e.Labels), After: joinOr(f.Labels)})
		}
		if e.Summary != f.Summary {
			m.changes = append(m.changes, EntityChange{Kind: "summary", A: []string{e.Name}, B: []string{f.Name},
				Before: e.Summary, After: f.Summary})
		}
	}
	slices.SortStableFunc(m.changes, func(x, y EntityChange) int {
		return cmp.Or(cmp.Compare(kindRank[x.Kind], kindRank[y.Kind]), cmp.Compare(firstOf(x.A), firstOf(y.A)), cmp.Compare(firstOf(x.B), firstOf(y.B)))
	})
}

var kindRank = map[string]int{"merged": 0, "split": 1, "renamed": 2, "removed": 3, "added": 4, "labels": 5, "summary": 6}

func first(eps []string) []string {
	eps = slices.Clone(eps)
	slices.Sort(eps)
	eps = slices.Compact(eps)
	return eps[:min(len(eps), maxEpisodes)]
}

func firstOf(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	return xs[0]
}

func joinOr(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return strings.Join(xs, ", ")
}
