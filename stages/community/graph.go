package community

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/graph"
)

// groupGraph is a group's entity graph with compact ids: node i is the entity with the i-th
// smallest uuid, so the numbering, and with it the result of Propagate, does not depend on the
// order the store or a caller lists entities and facts in.
type groupGraph struct {
	uuids   []string // ascending, distinct
	created []int64  // created_at of each node, Unix microseconds
	edges   []Edge   // one unit edge per fact between two distinct known entities
}

// entityRef is what the stage keeps of an entity while it partitions the group.
type entityRef struct {
	uuid    string
	created int64
}

// newGroupGraph numbers the given entities canonically; a repeated uuid keeps its first entry.
func newGroupGraph(ents []entityRef) *groupGraph {
	slices.SortStableFunc(ents, func(a, b entityRef) int { return cmp.Compare(a.uuid, b.uuid) })
	ents = slices.CompactFunc(ents, func(a, b entityRef) bool { return a.uuid == b.uuid })
	g := &groupGraph{uuids: make([]string, len(ents)), created: make([]int64, len(ents))}
	for i, e := range ents {
		g.uuids[i], g.created[i] = e.uuid, e.created
	}
	return g
}

// node returns the id of an entity uuid.
func (g *groupGraph) node(uuid string) (int32, bool) {
	i, ok := slices.BinarySearch(g.uuids, uuid)
	return int32(i), ok
}

// addFact adds a unit edge between two entities and reports whether both are known and distinct.
func (g *groupGraph) addFact(source, target string) bool {
	a, okA := g.node(source)
	b, okB := g.node(target)
	if !okA || !okB || a == b {
		return false
	}
	g.edges = append(g.edges, Edge{A: a, B: b, W: 1})
	return true
}

// communities partitions the graph and returns each community's members, ascending (so also in
// uuid order), the communities ordered by their smallest member.
func (g *groupGraph) communities(opts Options) [][]int32 {
	return Groups(Propagate(len(g.uuids), g.edges, opts))
}

// degrees returns the number of facts of each node.
func (g *groupGraph) degrees() []int32 {
	deg := make([]int32, len(g.uuids))
	for _, e := range g.edges {
		deg[e.A]++
		deg[e.B]++
	}
	return deg
}

// counts reports whether a fact is an edge under the onlyValid option: either every fact, or only
// facts that are still open (neither invalid_at nor expired_at set).
func counts(f checkpoints.FactEdge, onlyValid bool) bool {
	return !onlyValid || f.Open
}

// loadGraph reads a group's entities and facts from the store, keeping only what partitioning
// needs: uuids, creation times and one compact edge per fact.
func loadGraph(ctx context.Context, store *checkpoints.Store, group string, onlyValid bool) (*groupGraph, error) {
	var ents []entityRef
	if err := store.EachEntityStamp(ctx, group, func(uuid string, created time.Time) error {
		ents = append(ents, entityRef{uuid: uuid, created: created.UnixMicro()})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("loading entities of %s: %w", group, err)
	}
	g := newGroupGraph(ents)
	if err := store.EachFactEdge(ctx, group, func(f checkpoints.FactEdge) error {
		if counts(f, onlyValid) {
			g.addFact(f.Source, f.Target)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("loading facts of %s: %w", group, err)
	}
	return g, nil
}

// leaf is a member whose summary goes into its community's summary.
type leaf struct {
	name string
	text string // one line: "name: summary", or the name alone when there is no summary
}

// loadLeaves reads the name and summary of the wanted nodes.
func loadLeaves(ctx context.Context, store *checkpoints.Store, group string, g *groupGraph, want []bool) (map[int32]leaf, error) {
	out := map[int32]leaf{}
	err := store.EachEntity(ctx, group, func(e graph.Entity) error {
		if u, ok := g.node(e.UUID); ok && want[u] {
			if _, dup := out[u]; !dup {
				out[u] = leaf{name: strings.TrimSpace(e.Name), text: leafText(e.Name, e.Summary)}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("loading member summaries of %s: %w", group, err)
	}
	return out, nil
}
