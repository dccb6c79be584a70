package sinks

import (
	"cmp"
	"context"
	"slices"

	"github.com/tkgraph/backfill/graph"
)

// MemSource is a Source over in-memory slices, for tests and small exports. Each method streams a
// sorted copy of its slice in the order Source documents, whatever the order of the slice.
type MemSource struct {
	EpisodeList     []graph.Episode
	EntityList      []graph.Entity
	FactList        []graph.Fact
	FactVersionList []graph.FactVersion
	MentionList     []graph.Mention
	CommunityList   []graph.Community
}

var _ Source = (*MemSource)(nil)

// stream calls fn on each item of a sorted copy of items, checking ctx before each call.
func stream[T any](ctx context.Context, items []T, less func(a, b T) int, fn func(T) error) error {
	sorted := slices.Clone(items)
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

// Episodes streams episodes ordered by group_id, reference_time, seq.
func (m *MemSource) Episodes(ctx context.Context, fn func(graph.Episode) error) error {
	return stream(ctx, m.EpisodeList, func(a, b graph.Episode) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), a.ReferenceTime.Compare(b.ReferenceTime),
			cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.UUID, b.UUID))
	}, fn)
}

// Entities streams entities ordered by group_id, uuid.
func (m *MemSource) Entities(ctx context.Context, fn func(graph.Entity) error) error {
	return stream(ctx, m.EntityList, func(a, b graph.Entity) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), cmp.Compare(a.UUID, b.UUID))
	}, fn)
}

// Facts streams facts ordered by group_id, uuid.
func (m *MemSource) Facts(ctx context.Context, fn func(graph.Fact) error) error {
	return stream(ctx, m.FactList, func(a, b graph.Fact) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), cmp.Compare(a.UUID, b.UUID))
	}, fn)
}

// FactVersions streams the fact version log ordered by fact_uuid, seq.
func (m *MemSource) FactVersions(ctx context.Context, fn func(graph.FactVersion) error) error {
	return stream(ctx, m.FactVersionList, func(a, b graph.FactVersion) int {
		return cmp.Or(cmp.Compare(a.FactUUID, b.FactUUID), cmp.Compare(a.Seq, b.Seq))
	}, fn)
}

// Mentions streams MENTIONS edges ordered by group_id, uuid.
func (m *MemSource) Mentions(ctx context.Context, fn func(graph.Mention) error) error {
	return stream(ctx, m.MentionList, func(a, b graph.Mention) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), cmp.Compare(a.UUID, b.UUID))
	}, fn)
}

// Communities streams communities ordered by group_id, uuid.
func (m *MemSource) Communities(ctx context.Context, fn func(graph.Community) error) error {
	return stream(ctx, m.CommunityList, func(a, b graph.Community) int {
		return cmp.Or(cmp.Compare(a.GroupID, b.GroupID), cmp.Compare(a.UUID, b.UUID))
	}, fn)
}
