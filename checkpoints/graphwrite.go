package checkpoints

import (
	"context"
	"fmt"

	"github.com/tkgraph/backfill/graph"
)

func (t *Tx) exec(ctx context.Context, what, q string, args ...any) error {
	if _, err := t.tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// ReplaceEntities replaces a group's entities and mentions.
func (t *Tx) ReplaceEntities(ctx context.Context, group string, ents []graph.Entity, ms []graph.Mention) error {
	if err := t.exec(ctx, "clearing entities", `DELETE FROM entities WHERE group_id=?`, group); err != nil {
		return err
	}
	if err := t.exec(ctx, "clearing mentions", `DELETE FROM mentions WHERE group_id=?`, group); err != nil {
		return err
	}
	for _, e := range ents {
		labels := e.Labels
		if labels == nil {
			labels = []string{}
		}
		attrs := e.Attributes
		if attrs == nil {
			attrs = map[string]any{}
		}
		if err := t.exec(ctx, "writing entity", `INSERT INTO entities(uuid,group_id,name,summary,labels,attributes,created_at,name_embedding) VALUES(?,?,?,?,?,?,?,?)`,
			e.UUID, group, e.Name, e.Summary, encodeJSON(labels), encodeJSON(attrs), micros(e.CreatedAt), encodeVec(e.NameEmbedding)); err != nil {
			return err
		}
	}
	for _, m := range ms {
		if err := t.exec(ctx, "writing mention", `INSERT INTO mentions(uuid,group_id,episode_uuid,entity_uuid,created_at) VALUES(?,?,?,?,?)`,
			m.UUID, group, m.EpisodeUUID, m.EntityUUID, micros(m.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

// ReplaceFacts replaces a group's facts and their version log.
func (t *Tx) ReplaceFacts(ctx context.Context, group string, facts []graph.Fact, versions []graph.FactVersion) error {
	if err := t.exec(ctx, "clearing facts", `DELETE FROM facts WHERE group_id=?`, group); err != nil {
		return err
	}
	if err := t.exec(ctx, "clearing fact versions", `DELETE FROM fact_versions WHERE group_id=?`, group); err != nil {
		return err
	}
	for _, f := range facts {
		if err := t.exec(ctx, "writing fact", `INSERT INTO facts(uuid,group_id,source_uuid,target_uuid,name,fact,episodes,created_at,expired_at,valid_at,invalid_at,reference_time,fact_embedding)
			VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			f.UUID, group, f.SourceUUID, f.TargetUUID, f.Name, f.Fact, encodeJSON(f.Episodes), micros(f.CreatedAt),
			nullMicros(f.ExpiredAt), nullMicros(f.ValidAt), nullMicros(f.InvalidAt), micros(f.ReferenceTime), encodeVec(f.Embedding)); err != nil {
			return err
		}
	}
	for _, v := range versions {
		if err := t.exec(ctx, "writing fact version", `INSERT INTO fact_versions(fact_uuid,seq,group_id,record_time,valid_at,invalid_at,expired_at,episode_uuid,reason)
			VALUES(?,?,?,?,?,?,?,?,?)`,
			v.FactUUID, v.Seq, group, micros(v.RecordTime), nullMicros(v.ValidAt), nullMicros(v.InvalidAt), nullMicros(v.ExpiredAt), v.EpisodeUUID, v.Reason); err != nil {
			return err
		}
	}
	return nil
}

// SetSummary sets an entity's summary and typed attributes.
func (t *Tx) SetSummary(ctx context.Context, uuid, summary string, attrs map[string]any) error {
	if attrs == nil {
		attrs = map[string]any{}
	}
	return t.exec(ctx, "writing summary", `UPDATE entities SET summary=?, attributes=? WHERE uuid=?`, summary, encodeJSON(attrs), uuid)
}

// SetEntityEmbedding sets an entity's name embedding.
func (t *Tx) SetEntityEmbedding(ctx context.Context, uuid string, v []float32) error {
	return t.exec(ctx, "writing entity embedding", `UPDATE entities SET name_embedding=? WHERE uuid=?`, encodeVec(v), uuid)
}

// SetFactEmbedding sets a fact's embedding.
func (t *Tx) SetFactEmbedding(ctx context.Context, uuid string, v []float32) error {
	return t.exec(ctx, "writing fact embedding", `UPDATE facts SET fact_embedding=? WHERE uuid=?`, encodeVec(v), uuid)
}

// ReplaceCommunities replaces a group's communities.
func (t *Tx) ReplaceCommunities(ctx context.Context, group string, cs []graph.Community) error {
	if err := t.exec(ctx, "clearing communities", `DELETE FROM communities WHERE group_id=?`, group); err != nil {
		return err
	}
	for _, c := range cs {
		if err := t.exec(ctx, "writing community", `INSERT INTO communities(uuid,group_id,name,summary,members,created_at,name_embedding) VALUES(?,?,?,?,?,?,?)`,
			c.UUID, group, c.Name, c.Summary, encodeJSON(c.Members), micros(c.CreatedAt), encodeVec(c.NameEmbedding)); err != nil {
			return err
		}
	}
	return nil
}
