package evaluation

import (
	"slices"
	"sort"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/namekey"
	"github.com/tkgraph/backfill/snapshots"
)

// Health is the graph's health, for one group or summed over groups.
type Health struct {
	Group       string `json:"group,omitempty"`
	Groups      int    `json:"groups"`
	Episodes    int    `json:"episodes"`
	Entities    int    `json:"entities"`
	Facts       int    `json:"facts"`
	Communities int    `json:"communities"`

	EntitiesPerEpisode float64 `json:"entities_per_episode"`
	FactsPerEpisode    float64 `json:"facts_per_episode"`
	FactsWithValidAt   int     `json:"facts_with_valid_at"`
	ValidAtShare       float64 `json:"valid_at_share"`
	FactsClosed        int     `json:"facts_closed"` // invalid_at set
	ClosedShare        float64 `json:"closed_share"`
	// NameCollisions counts entities whose normalised name equals that of another entity of
	// their group (missed merges), beyond the first of each name; Collisions names a few.
	NameCollisions       int      `json:"name_collisions"`
	Collisions           []string `json:"collision_examples,omitempty"`
	EntitiesWithoutFacts int      `json:"entities_without_facts"`
	// ClosedByStranger counts closures (version log reasons closed_by_newer and
	// closed_by_later_start) whose closing fact shares no endpoint with the closed fact: it
	// must be 0. ClosuresUnattributed counts closures whose closing fact could not be found
	// (a fact merged into a duplicate keeps the earliest start). Both are nil when the graph
	// has no version log read group by group (a Parquet export: its fact_versions.parquet is
	// ordered by fact across groups, snapshots).
	ClosedByStranger     *int `json:"closed_by_stranger"`
	ClosuresUnattributed *int `json:"closures_unattributed"`
	// CommunitySizes counts communities by member count.
	CommunitySizes map[int]int `json:"community_sizes"`
}

// maxCollisionExamples bounds Health.Collisions.
const maxCollisionExamples = 10

// groupHealth measures one group.
func groupHealth(g *snapshots.Group, versions bool) Health {
	h := Health{Group: g.ID, Groups: 1, Episodes: len(g.Episodes), Entities: len(g.Entities), Facts: len(g.Facts),
		Communities: len(g.Communities), CommunitySizes: map[int]int{}}
	withFacts := map[string]bool{}
	for _, f := range g.Facts {
		withFacts[f.SourceUUID], withFacts[f.TargetUUID] = true, true
		if f.ValidAt != nil {
			h.FactsWithValidAt++
		}
		if f.InvalidAt != nil {
			h.FactsClosed++
		}
	}
	byName := map[string][]string{}
	for _, e := range g.Entities {
		if !withFacts[e.UUID] {
			h.EntitiesWithoutFacts++
		}
		key := namekey.Normalize(e.Name)
		byName[key] = append(byName[key], e.Name)
	}
	keys := make([]string, 0, len(byName))
	for k := range byName {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if names := byName[k]; len(names) > 1 {
			h.NameCollisions += len(names) - 1
			if len(h.Collisions) < maxCollisionExamples {
				h.Collisions = append(h.Collisions, g.ID+": "+strings.Join(names, " / "))
			}
		}
	}
	for _, c := range g.Communities {
		h.CommunitySizes[len(c.Members)]++
	}
	if versions {
		stranger, unattributed := closures(g)
		h.ClosedByStranger, h.ClosuresUnattributed = &stranger, &unattributed
	}
	h.finish()
	return h
}

// closures checks every closure of the version log: the closing fact is a fact of the group,
// other than the closed one, whose valid_at is the closure's invalid_at and, for
// closed_by_newer, whose episodes include the version's episode (the closer's creating one).
// A closure is by a stranger when such facts exist and none shares an endpoint with the closed
// fact, unattributed when there is none.
func closures(g *snapshots.Group) (stranger, unattributed int) {
	byID := make(map[string]*graph.Fact, len(g.Facts))
	for i := range g.Facts {
		byID[g.Facts[i].UUID] = &g.Facts[i]
	}
	for _, v := range g.Versions {
		if v.InvalidAt == nil || v.Reason != graph.ReasonClosedByNewer && v.Reason != graph.ReasonClosedByLaterStart {
			continue
		}
		closed, ok := byID[v.FactUUID]
		if !ok {
			unattributed++
			continue
		}
		found, neighbour := false, false
		for i := range g.Facts {
			c := &g.Facts[i]
			if c.UUID == closed.UUID || c.ValidAt == nil || !c.ValidAt.Equal(*v.InvalidAt) {
				continue
			}
			if v.Reason == graph.ReasonClosedByNewer && !slices.Contains(c.Episodes, v.EpisodeUUID) {
				continue
			}
			found = true
			if graph.SharesEndpoint(closed, c) {
				neighbour = true
				break
			}
		}
		switch {
		case !found:
			unattributed++
		case !neighbour:
			stranger++
		}
	}
	return stranger, unattributed
}

// add sums another group's health into h (ratios are recomputed by finish).
func (h *Health) add(o Health) {
	h.Groups += o.Groups
	h.Episodes += o.Episodes
	h.Entities += o.Entities
	h.Facts += o.Facts
	h.Communities += o.Communities
	h.FactsWithValidAt += o.FactsWithValidAt
	h.FactsClosed += o.FactsClosed
	h.NameCollisions += o.NameCollisions
	for _, c := range o.Collisions {
		if len(h.Collisions) < maxCollisionExamples {
			h.Collisions = append(h.Collisions, c)
		}
	}
	h.EntitiesWithoutFacts += o.EntitiesWithoutFacts
	h.ClosedByStranger = addOpt(h.ClosedByStranger, o.ClosedByStranger)
	h.ClosuresUnattributed = addOpt(h.ClosuresUnattributed, o.ClosuresUnattributed)
	if h.CommunitySizes == nil {
		h.CommunitySizes = map[int]int{}
	}
	for size, n := range o.CommunitySizes {
		h.CommunitySizes[size] += n
	}
}

// addOpt sums two optional counts; nil (not measured) wins, so a total is never partial.
func addOpt(a, b *int) *int {
	if a == nil || b == nil {
		return nil
	}
	s := *a + *b
	return &s
}

func (h *Health) finish() {
	h.EntitiesPerEpisode = ratio(h.Entities, h.Episodes)
	h.FactsPerEpisode = ratio(h.Facts, h.Episodes)
	h.ValidAtShare = ratio(h.FactsWithValidAt, h.Facts)
	h.ClosedShare = ratio(h.FactsClosed, h.Facts)
}
