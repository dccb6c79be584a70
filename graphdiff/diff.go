package graphdiff

import (
	"context"
	"fmt"
	"iter"

	"github.com/tkgraph/backfill/evaluation"
	"github.com/tkgraph/backfill/snapshots"
)

// DefaultLimit is how many of the most important changes Report.Top keeps when Options.Limit
// is 0.
const DefaultLimit = 20

// MaxLimit bounds Options.Limit.
const MaxLimit = 100000

// Options narrow a diff.
type Options struct {
	Group string // only this group ("" = every group)
	Limit int    // most important changes kept in Report.Top (DefaultLimit when 0)
}

// Counts are the changes of a group, or of the whole graph.
type Counts struct {
	EntitiesAdded      int `json:"entities_added"`
	EntitiesRemoved    int `json:"entities_removed"`
	EntitiesRenamed    int `json:"entities_renamed"`
	EntitiesMerged     int `json:"entities_merged"`
	EntitiesSplit      int `json:"entities_split"`
	LabelsChanged      int `json:"labels_changed"`
	SummariesChanged   int `json:"summaries_changed"`
	FactsAdded         int `json:"facts_added"`
	FactsRemoved       int `json:"facts_removed"`
	SentenceChanged    int `json:"sentence_changed"`
	ValidAtChanged     int `json:"valid_at_changed"`
	InvalidAtChanged   int `json:"invalid_at_changed"`
	ExpiredAtChanged   int `json:"expired_at_changed"`
	NewlyClosed        int `json:"newly_closed"`
	Reopened           int `json:"reopened"`
	CommunitiesChanged int `json:"communities_changed"`
	CommunitiesAdded   int `json:"communities_added"`
	CommunitiesRemoved int `json:"communities_removed"`
}

// Empty reports whether nothing changed.
func (c Counts) Empty() bool { return c == Counts{} }

func (c *Counts) add(o Counts) {
	for _, p := range []struct{ dst, src *int }{
		{&c.EntitiesAdded, &o.EntitiesAdded}, {&c.EntitiesRemoved, &o.EntitiesRemoved}, {&c.EntitiesRenamed, &o.EntitiesRenamed},
		{&c.EntitiesMerged, &o.EntitiesMerged}, {&c.EntitiesSplit, &o.EntitiesSplit}, {&c.LabelsChanged, &o.LabelsChanged},
		{&c.SummariesChanged, &o.SummariesChanged}, {&c.FactsAdded, &o.FactsAdded}, {&c.FactsRemoved, &o.FactsRemoved},
		{&c.SentenceChanged, &o.SentenceChanged}, {&c.ValidAtChanged, &o.ValidAtChanged}, {&c.InvalidAtChanged, &o.InvalidAtChanged},
		{&c.ExpiredAtChanged, &o.ExpiredAtChanged}, {&c.NewlyClosed, &o.NewlyClosed}, {&c.Reopened, &o.Reopened},
		{&c.CommunitiesChanged, &o.CommunitiesChanged}, {&c.CommunitiesAdded, &o.CommunitiesAdded}, {&c.CommunitiesRemoved, &o.CommunitiesRemoved},
	} {
		*p.dst += *p.src
	}
}

// GroupDiff is the changes of one group.
type GroupDiff struct {
	Group       string            `json:"group"`
	OnlyIn      string            `json:"only_in,omitempty"` // "a" or "b" when the other side lacks the group
	Counts      Counts            `json:"counts"`
	Entities    []EntityChange    `json:"entities,omitempty"`
	Facts       []FactChange      `json:"facts,omitempty"`
	Communities []CommunityChange `json:"communities,omitempty"`
}

// Report is the totals of a diff, the LLM usage of each side and its most important changes.
type Report struct {
	A             string    `json:"a"`
	B             string    `json:"b"`
	KindA         string    `json:"kind_a"` // what each side is (snapshots.KindCheckpoint, KindNeo4j, …)
	KindB         string    `json:"kind_b"`
	Groups        int       `json:"groups"`
	GroupsChanged int       `json:"groups_changed"`
	GroupsCommon  int       `json:"groups_common"` // groups in both graphs
	Totals        Counts    `json:"totals"`
	UsageA        *Usage    `json:"llm_a"` // nil when the side records no runs (all but a checkpoint)
	UsageB        *Usage    `json:"llm_b"`
	Top           []Notable `json:"top"`
	// Gold compares both graphs' gold scores episode by episode (diff --gold); nil without.
	Gold *evaluation.GoldChange `json:"gold,omitempty"`
}

// Empty reports whether the two graphs are the same.
func (r *Report) Empty() bool { return r.GroupsChanged == 0 }

// NoCommonGroup says, when the graphs have groups but none in common, that every change is a
// whole group added or removed ("" otherwise).
func (r *Report) NoCommonGroup() string {
	if r.Groups == 0 || r.GroupsCommon > 0 {
		return ""
	}
	return "no group in common: every group of A is removed and every group of B added (graphs of different inputs, or --group names a group of one side only?)"
}

// Run compares the graphs group by group, both read in group order side by side, so at most
// one group of each is in memory. emit receives every group that changed, in group order; the
// report holds the totals and the Limit most important changes.
func Run(ctx context.Context, a, b snapshots.Snapshot, o Options, emit func(*GroupDiff) error) (*Report, error) {
	if o.Limit <= 0 {
		o.Limit = DefaultLimit
	}
	o.Limit = min(o.Limit, MaxLimit)
	var want func(string) bool
	if o.Group != "" {
		want = func(id string) bool { return id == o.Group }
	}
	rep := &Report{A: a.Describe(), B: b.Describe(), KindA: a.Kind(), KindB: b.Kind()}
	var err error
	if rep.UsageA, err = usageOf(ctx, a); err != nil {
		return nil, err
	}
	if rep.UsageB, err = usageOf(ctx, b); err != nil {
		return nil, err
	}
	nextA, stopA := iter.Pull2(a.Groups(ctx, want))
	defer stopA()
	nextB, stopB := iter.Pull2(b.Groups(ctx, want))
	defer stopB()
	ga, errA, okA := nextA()
	gb, errB, okB := nextB()
	top := &notables{limit: o.Limit}
	for okA || okB {
		if errA != nil {
			return nil, fmt.Errorf("reading %s: %w", rep.A, errA)
		}
		if errB != nil {
			return nil, fmt.Errorf("reading %s: %w", rep.B, errB)
		}
		var x, y *snapshots.Group
		switch {
		case okA && (!okB || ga.ID < gb.ID):
			x = ga
		case okB && (!okA || gb.ID < ga.ID):
			y = gb
		default:
			x, y = ga, gb
		}
		d := diffGroup(x, y, top)
		rep.Groups++
		if x != nil && y != nil {
			rep.GroupsCommon++
		}
		rep.Totals.add(d.Counts)
		if !d.Counts.Empty() || d.OnlyIn != "" {
			rep.GroupsChanged++
			if err := emit(d); err != nil {
				return nil, err
			}
		}
		if x != nil {
			ga, errA, okA = nextA()
		}
		if y != nil {
			gb, errB, okB = nextB()
		}
	}
	rep.Top = top.list
	return rep, nil
}

// diffGroup compares one group (nil on the side that lacks it).
func diffGroup(x, y *snapshots.Group, top *notables) *GroupDiff {
	a, b := newSide(x), newSide(y)
	d := &GroupDiff{}
	switch {
	case x == nil:
		d.Group, d.OnlyIn = y.ID, "b"
	case y == nil:
		d.Group, d.OnlyIn = x.ID, "a"
	default:
		d.Group = x.ID
	}
	m := matchEntities(a, b)
	d.Entities = m.changes
	d.Facts = diffFacts(a, b, m)
	d.Communities = diffCommunities(a, b, m)
	d.count()
	top.addGroup(d, a, b)
	return d
}

func (d *GroupDiff) count() {
	c := &d.Counts
	for _, e := range d.Entities {
		switch e.Kind {
		case "added":
			c.EntitiesAdded++
		case "removed":
			c.EntitiesRemoved++
		case "renamed":
			c.EntitiesRenamed++
		case "merged":
			c.EntitiesMerged++
		case "split":
			c.EntitiesSplit++
		case "labels":
			c.LabelsChanged++
		case "summary":
			c.SummariesChanged++
		}
	}
	for _, f := range d.Facts {
		switch f.Kind {
		case "added":
			c.FactsAdded++
		case "removed":
			c.FactsRemoved++
		}
		for _, w := range f.What {
			*map[string]*int{"sentence": &c.SentenceChanged, "valid_at": &c.ValidAtChanged, "invalid_at": &c.InvalidAtChanged,
				"expired_at": &c.ExpiredAtChanged, "closed": &c.NewlyClosed, "reopened": &c.Reopened}[w]++
		}
	}
	for _, cc := range d.Communities {
		switch cc.Kind {
		case "changed":
			c.CommunitiesChanged++
		case "added":
			c.CommunitiesAdded++
		case "removed":
			c.CommunitiesRemoved++
		}
	}
}
