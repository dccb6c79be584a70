package sinks

import (
	"cmp"
	"context"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// MemSource is a Source over in-memory slices, for tests and small exports. Each method reads a
// sorted copy of its group's records in the order Source documents, whatever the order of the
// slices.
type MemSource struct {
	EpisodeList     []graph.Episode
	EntityList      []graph.Entity
	FactList        []graph.Fact
	FactVersionList []graph.FactVersion
	MentionList     []graph.Mention
	CommunityList   []graph.Community
}

var _ Source = (*MemSource)(nil)

// stream calls fn on each item of group in a sorted copy of items, checking ctx before each call.
func stream[T any](ctx context.Context, items []T, group string, groupOf func(T) string, less func(a, b T) int, fn func(T) error) error {
	var sorted []T
	for _, it := range items {
		if groupOf(it) == group {
			sorted = append(sorted, it)
		}
	}
	slices.SortStableFunc(sorted, less)
	for _, it := range sorted {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	return nil
}

// Groups lists the groups of the episodes and entities, sorted.
func (m *MemSource) Groups(context.Context) ([]string, error) {
	var out []string
	for _, e := range m.EpisodeList {
		out = append(out, e.GroupID)
	}
	for _, e := range m.EntityList {
		out = append(out, e.GroupID)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// GroupEpisodes returns a group's episodes ordered by reference_time, seq, uuid.
func (m *MemSource) GroupEpisodes(ctx context.Context, group string) ([]graph.Episode, error) {
	var out []graph.Episode
	err := stream(ctx, m.EpisodeList, group, func(e graph.Episode) string { return e.GroupID }, func(a, b graph.Episode) int {
		return cmp.Or(a.ReferenceTime.Compare(b.ReferenceTime), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.UUID, b.UUID))
	}, func(e graph.Episode) error { out = append(out, e); return nil })
	return out, err
}

// EachEntity streams a group's entities ordered by uuid.
func (m *MemSource) EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error {
	return stream(ctx, m.EntityList, group, func(e graph.Entity) string { return e.GroupID },
		func(a, b graph.Entity) int { return cmp.Compare(a.UUID, b.UUID) }, fn)
}

// EachFact streams a group's facts ordered by uuid.
func (m *MemSource) EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error {
	return stream(ctx, m.FactList, group, func(f graph.Fact) string { return f.GroupID },
		func(a, b graph.Fact) int { return cmp.Compare(a.UUID, b.UUID) }, fn)
}

// EachFactVersion streams a group's fact version log ordered by fact_uuid, seq.
func (m *MemSource) EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error {
	return stream(ctx, m.FactVersionList, group, func(v graph.FactVersion) string { return v.GroupID },
		func(a, b graph.FactVersion) int {
			return cmp.Or(cmp.Compare(a.FactUUID, b.FactUUID), cmp.Compare(a.Seq, b.Seq))
		}, fn)
}

// EachMention streams a group's MENTIONS edges ordered by uuid.
func (m *MemSource) EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error {
	return stream(ctx, m.MentionList, group, func(x graph.Mention) string { return x.GroupID },
		func(a, b graph.Mention) int { return cmp.Compare(a.UUID, b.UUID) }, fn)
}

// EachCommunity streams a group's communities ordered by uuid.
func (m *MemSource) EachCommunity(ctx context.Context, group string, fn func(graph.Community) error) error {
	return stream(ctx, m.CommunityList, group, func(c graph.Community) string { return c.GroupID },
		func(a, b graph.Community) int { return cmp.Compare(a.UUID, b.UUID) }, fn)
}
