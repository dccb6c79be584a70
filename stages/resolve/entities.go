package resolve

import (
	"strings"

	"github.com/tkgraph/backfill/graph"
)

// built is the entity side of a group's resolution.
type built struct {
	entities []graph.Entity
	mentions []graph.Mention
	entOf    []int // key id → index in entities
}

// entities turns the final clusters into entities, in order of their earliest mention, and the
// mentions into MENTIONS edges (one per episode and entity). An entity's id is made from the group
// and its canonical key; its name is that key's first spelling; its label is the ontology type its
// mentions gave most often (ties: the type given first), so a specific type wins over "Entity";
// its attributes are those of that type, the latest value stated for each.
func (r *resolver) entities() built {
	b := built{entOf: make([]int, len(r.n.keys))}
	members := r.members()
	rootEnt := map[int]int{}
	for i := range r.n.keys {
		root := r.uf.Find(i)
		ei, ok := rootEnt[root]
		if !ok {
			ei = len(b.entities)
			rootEnt[root] = ei
			canon := r.canonical(members[root])
			b.entities = append(b.entities, graph.Entity{UUID: graph.EntityID(r.group, r.n.keys[canon]), GroupID: r.group,
				Name: r.n.spell[canon], CreatedAt: r.env.RecordTimeOf(r.eps[r.n.first[root]])})
		}
		b.entOf[i] = ei
	}
	r.labelAndAttributes(b)
	seen := map[string]bool{}
	for _, m := range r.n.mentions {
		ep := r.eps[m.episode]
		ent := b.entities[b.entOf[m.key]]
		id := graph.MentionID(ep.UUID, ent.UUID)
		if seen[id] {
			continue
		}
		seen[id] = true
		b.mentions = append(b.mentions, graph.Mention{UUID: id, GroupID: r.group, EpisodeUUID: ep.UUID, EntityUUID: ent.UUID,
			CreatedAt: r.env.RecordTimeOf(ep)})
	}
	r.stats.Names, r.stats.Entities = len(r.n.keys), len(b.entities)
	return b
}

// labelAndAttributes sets each entity's label and attributes from its mentions.
func (r *resolver) labelAndAttributes(b built) {
	type tally struct {
		order []string
		count map[string]int
	}
	tallies := make([]tally, len(b.entities))
	for _, m := range r.n.mentions {
		if m.typ == "" {
			continue
		}
		t := &tallies[b.entOf[m.key]]
		if t.count == nil {
			t.count = map[string]int{}
		}
		if t.count[m.typ] == 0 {
			t.order = append(t.order, m.typ)
		}
		t.count[m.typ]++
	}
	for ei, t := range tallies {
		best := ""
		for _, typ := range t.order {
			if best == "" || t.count[typ] > t.count[best] {
				best = typ
			}
		}
		if best != "" {
			b.entities[ei].Labels = []string{best}
		}
	}
	for _, m := range r.n.mentions { // in episode order: the latest value wins
		e := &b.entities[b.entOf[m.key]]
		if len(e.Labels) == 0 {
			continue
		}
		for _, a := range m.attrs {
			name := r.attributeName(e.Labels[0], a.Name)
			if v := strings.TrimSpace(a.Value); name != "" && v != "" {
				if e.Attributes == nil {
					e.Attributes = map[string]any{}
				}
				e.Attributes[name] = v
			}
		}
	}
}

// attributeName returns the ontology's spelling of an attribute of a type (case-insensitive), or
// "" when the type has no such attribute.
func (r *resolver) attributeName(typ, name string) string {
	for _, a := range r.opts.attributes(typ) {
		if strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(name)) {
			return a
		}
	}
	return ""
}
