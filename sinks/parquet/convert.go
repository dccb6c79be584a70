package parquet

import (
	"fmt"
	"slices"
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
)

func episodeRow(e graph.Episode, entityEdges []string) EpisodeRow {
	r := EpisodeRow{
		UUID: e.UUID, GroupID: e.GroupID, Name: e.Name, Source: e.Source, SourceDescription: e.SourceDescription,
		Content: e.Content, EntityEdges: entityEdges, CreatedAt: sinks.EpisodeCreatedAt(e),
		ValidAt: e.ReferenceTime.UTC(), Seq: e.Seq, RecordKey: e.RecordKey,
	}
	if r.EntityEdges == nil {
		r.EntityEdges = []string{}
	}
	if e.Speaker != "" {
		s := e.Speaker
		r.Speaker = &s
	}
	return r
}

func entityRow(e graph.Entity) (EntityRow, error) {
	r := EntityRow{
		UUID: e.UUID, GroupID: e.GroupID, Name: e.Name, Summary: e.Summary,
		Labels:    append([]string{"Entity"}, sinks.EntityLabels(e)...),
		CreatedAt: e.CreatedAt.UTC(), NameEmbedding: embedding(e.NameEmbedding),
	}
	if len(e.Attributes) > 0 {
		s, err := sinks.CanonicalJSON(e.Attributes)
		if err != nil {
			return EntityRow{}, fmt.Errorf("encoding attributes of entity %s: %w", e.UUID, err)
		}
		r.Attributes = &s
	}
	return r, nil
}

func factRow(f graph.Fact) FactRow {
	return FactRow{
		UUID: f.UUID, GroupID: f.GroupID, SourceNodeUUID: f.SourceUUID, TargetNodeUUID: f.TargetUUID,
		Name: f.Name, Fact: f.Fact, Episodes: nonNil(f.Episodes), CreatedAt: f.CreatedAt.UTC(),
		ExpiredAt: utc(f.ExpiredAt), ValidAt: utc(f.ValidAt), InvalidAt: utc(f.InvalidAt),
		ReferenceTime: f.ReferenceTime.UTC(), FactEmbedding: embedding(f.Embedding),
	}
}

func factVersionRow(v graph.FactVersion) FactVersionRow {
	return FactVersionRow{
		FactUUID: v.FactUUID, GroupID: v.GroupID, Seq: int64(v.Seq), RecordTime: v.RecordTime.UTC(),
		ValidAt: utc(v.ValidAt), InvalidAt: utc(v.InvalidAt), ExpiredAt: utc(v.ExpiredAt),
		EpisodeUUID: v.EpisodeUUID, Reason: v.Reason,
	}
}

func mentionRow(m graph.Mention) EdgeRow {
	return EdgeRow{UUID: m.UUID, GroupID: m.GroupID, SourceNodeUUID: m.EpisodeUUID, TargetNodeUUID: m.EntityUUID,
		CreatedAt: m.CreatedAt.UTC()}
}

func communityRow(c graph.Community) CommunityRow {
	return CommunityRow{UUID: c.UUID, GroupID: c.GroupID, Name: c.Name, Summary: c.Summary,
		CreatedAt: c.CreatedAt.UTC(), NameEmbedding: embedding(c.NameEmbedding)}
}

// hasMemberRows are the HAS_MEMBER edges of c, one per member in sorted, de-duplicated order.
func hasMemberRows(c graph.Community) []EdgeRow {
	members := slices.Clone(c.Members)
	slices.Sort(members)
	members = slices.Compact(members)
	out := make([]EdgeRow, 0, len(members))
	for _, m := range members {
		out = append(out, EdgeRow{UUID: graph.HasMemberID(c.UUID, m), GroupID: c.GroupID,
			SourceNodeUUID: c.UUID, TargetNodeUUID: m, CreatedAt: c.CreatedAt.UTC()})
	}
	return out
}

// embedding is v, or nil (a null cell) when v is empty.
func embedding(v []float32) []float32 {
	if len(v) == 0 {
		return nil
	}
	return v
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
