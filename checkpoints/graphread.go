package checkpoints

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tkgraph/backfill/graph"
)

// each runs a query and calls scan for every row; scan must not write to the store.
func (s *Store) each(ctx context.Context, what, q string, args []any, scan func(*sql.Rows) error) error {
	rows, err := s.reader().QueryContext(ctx, q, args...)
	return scanEach(rows, err, what, scan)
}

// each runs a query in the transaction and calls scan for every row; scan must not write.
func (t *Tx) each(ctx context.Context, what, q string, args []any, scan func(*sql.Rows) error) error {
	rows, err := t.tx.QueryContext(ctx, q, args...)
	return scanEach(rows, err, what, scan)
}

// scanEach calls scan for every row of a query's result (rows, err), then closes it.
func scanEach(rows *sql.Rows, err error, what string, scan func(*sql.Rows) error) error {
	if err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return fmt.Errorf("reading %s: %w", what, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	return nil
}

// groupFilter gives a WHERE clause for an optional group ("" = every group).
func groupFilter(group string) (string, []any) {
	if group == "" {
		return "", nil
	}
	return " WHERE group_id = ?", []any{group}
}

// EachEntity streams entities ordered by group and uuid; group "" means every group.
func (s *Store) EachEntity(ctx context.Context, group string, fn func(graph.Entity) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "entities", `SELECT uuid,group_id,name,summary,labels,attributes,created_at,name_embedding FROM entities`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var e graph.Entity
			var labels, attrs string
			var created int64
			var emb []byte
			if err := r.Scan(&e.UUID, &e.GroupID, &e.Name, &e.Summary, &labels, &attrs, &created, &emb); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(labels), &e.Labels); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(attrs), &e.Attributes); err != nil {
				return err
			}
			e.CreatedAt, e.NameEmbedding = fromMicros(created), decodeVec(emb)
			return fn(e)
		})
}

// EachFact streams facts ordered by group and uuid; group "" means every group.
func (s *Store) EachFact(ctx context.Context, group string, fn func(graph.Fact) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "facts", `SELECT uuid,group_id,source_uuid,target_uuid,name,fact,episodes,created_at,expired_at,valid_at,invalid_at,reference_time,fact_embedding FROM facts`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var f graph.Fact
			var eps string
			var created, ref int64
			var exp, va, inv sql.NullInt64
			var emb []byte
			if err := r.Scan(&f.UUID, &f.GroupID, &f.SourceUUID, &f.TargetUUID, &f.Name, &f.Fact, &eps, &created, &exp, &va, &inv, &ref, &emb); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(eps), &f.Episodes); err != nil {
				return err
			}
			f.CreatedAt, f.ReferenceTime = fromMicros(created), fromMicros(ref)
			f.ExpiredAt, f.ValidAt, f.InvalidAt = fromNull(exp), fromNull(va), fromNull(inv)
			f.Embedding = decodeVec(emb)
			return fn(f)
		})
}

// FactEdge is a fact seen as an edge of the entity graph.
type FactEdge struct {
	Source, Target string // entity uuids
	Open           bool   // neither invalid_at nor expired_at is set
}

// EachFactEdge streams a group's facts as edges, in EachFact's order, without reading their
// text, episodes or embedding (a large group's facts load several times faster).
func (s *Store) EachFactEdge(ctx context.Context, group string, fn func(FactEdge) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "facts", `SELECT source_uuid,target_uuid,invalid_at IS NULL AND expired_at IS NULL FROM facts`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var e FactEdge
			if err := r.Scan(&e.Source, &e.Target, &e.Open); err != nil {
				return err
			}
			return fn(e)
		})
}

// EachEntityStamp streams a group's entity uuids with their record time, in EachEntity's
// order, without reading names, summaries or embeddings.
func (s *Store) EachEntityStamp(ctx context.Context, group string, fn func(uuid string, created time.Time) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "entities", `SELECT uuid,created_at FROM entities`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var id string
			var created int64
			if err := r.Scan(&id, &created); err != nil {
				return err
			}
			return fn(id, fromMicros(created))
		})
}

// EachFactVersion streams the fact version log ordered by fact uuid and sequence.
func (s *Store) EachFactVersion(ctx context.Context, group string, fn func(graph.FactVersion) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "fact versions", `SELECT fact_uuid,seq,group_id,record_time,valid_at,invalid_at,expired_at,episode_uuid,reason FROM fact_versions`+where+` ORDER BY fact_uuid, seq`, args,
		func(r *sql.Rows) error {
			var v graph.FactVersion
			var rt int64
			var va, inv, exp sql.NullInt64
			if err := r.Scan(&v.FactUUID, &v.Seq, &v.GroupID, &rt, &va, &inv, &exp, &v.EpisodeUUID, &v.Reason); err != nil {
				return err
			}
			v.RecordTime = fromMicros(rt)
			v.ValidAt, v.InvalidAt, v.ExpiredAt = fromNull(va), fromNull(inv), fromNull(exp)
			return fn(v)
		})
}

// EachMention streams mentions ordered by group and uuid.
func (s *Store) EachMention(ctx context.Context, group string, fn func(graph.Mention) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "mentions", `SELECT uuid,group_id,episode_uuid,entity_uuid,created_at FROM mentions`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var m graph.Mention
			var created int64
			if err := r.Scan(&m.UUID, &m.GroupID, &m.EpisodeUUID, &m.EntityUUID, &created); err != nil {
				return err
			}
			m.CreatedAt = fromMicros(created)
			return fn(m)
		})
}

// EachCommunity streams communities ordered by group and uuid.
func (s *Store) EachCommunity(ctx context.Context, group string, fn func(graph.Community) error) error {
	where, args := groupFilter(group)
	return s.each(ctx, "communities", `SELECT uuid,group_id,name,summary,members,created_at,name_embedding FROM communities`+where+` ORDER BY group_id, uuid`, args,
		func(r *sql.Rows) error {
			var c graph.Community
			var members string
			var created int64
			var emb []byte
			if err := r.Scan(&c.UUID, &c.GroupID, &c.Name, &c.Summary, &members, &created, &emb); err != nil {
				return err
			}
			if err := json.Unmarshal([]byte(members), &c.Members); err != nil {
				return err
			}
			c.CreatedAt, c.NameEmbedding = fromMicros(created), decodeVec(emb)
			return fn(c)
		})
}

// Counts of the graph state, for reports.
type Counts struct {
	Episodes, Entities, Facts, FactsInvalidated, Mentions, Communities, Quarantined int
}

// Count returns the graph state's counts.
func (s *Store) Count(ctx context.Context) (Counts, error) {
	return s.countIn(ctx, "")
}

// GroupCount returns the counts of one group (Quarantined is 0: rejected rows have no group).
func (s *Store) GroupCount(ctx context.Context, group string) (Counts, error) {
	return s.countIn(ctx, group)
}

func (s *Store) countIn(ctx context.Context, group string) (Counts, error) {
	var c Counts
	where, args := groupFilter(group)
	and := " WHERE "
	if where != "" {
		and = where + " AND "
	}
	for _, q := range []struct {
		dst *int
		sql string
	}{
		{&c.Episodes, `SELECT count(*) FROM episodes` + where},
		{&c.Entities, `SELECT count(*) FROM entities` + where},
		{&c.Facts, `SELECT count(*) FROM facts` + where},
		{&c.FactsInvalidated, `SELECT count(*) FROM facts` + and + `invalid_at IS NOT NULL`},
		{&c.Mentions, `SELECT count(*) FROM mentions` + where},
		{&c.Communities, `SELECT count(*) FROM communities` + where},
	} {
		n, err := s.count(ctx, q.sql, args...)
		if err != nil {
			return c, err
		}
		*q.dst = n
	}
	if group == "" {
		n, err := s.count(ctx, `SELECT count(*) FROM quarantine`)
		if err != nil {
			return c, err
		}
		c.Quarantined = n
	}
	return c, nil
}
