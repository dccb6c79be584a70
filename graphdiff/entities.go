package graphdiff

import (
	"cmp"
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
