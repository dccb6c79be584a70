package graphdb

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// reservedLabels may not be custom entity labels: their counts would mix with other nodes.
var reservedLabels = []string{cypher.LabelEpisodic, cypher.LabelCommunity}

// statements builds each batch statement once per load; the workers share it.
type statements struct {
	l  *Loader
	mu sync.Mutex
	m  map[string]stmt
}

// builder builds the batch statement of one kind of row for a dialect and write mode.
type builder func(cypher.Dialect, cypher.Write) (string, error)

// get returns the batch statement of key written with mode; a CREATE statement carries its
// MERGE form for retries.
func (s *statements) get(key string, mode cypher.Write, edge bool, build builder) (stmt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := fmt.Sprint(key, "/", mode)
	if st, ok := s.m[k]; ok {
		return st, nil
	}
	text, err := build(s.l.o.Dialect, mode)
	if err != nil {
		return stmt{}, err
	}
	st := stmt{text: text, edge: edge}
	if mode == cypher.Create {
		if st.retry, err = build(s.l.o.Dialect, cypher.Merge); err != nil {
			return stmt{}, err
		}
	}
	s.m[k] = st
	return st, nil
}

// groupWriter writes one group's rows. A row of a new group is CREATEd, of a held group MERGEd
// (sink.foreign: delete); with sink.foreign: keep a held group's row the loader wrote before
// and whose data did not change is written only where missing (cypher.Keep), and a changed one
// is reconciled with what the database holds (reconcile) and written with cypher.Update. Rows
// waiting for the database's properties are read a batch at a time.
type groupWriter struct {
	l       *Loader
	w       *writer
	c       *chunk
	stmts   *statements
	group   string
	graph   string
	mode    cypher.Write // Create, Merge, or Keep for a held group under sink.foreign: keep
	own     *groupOwn
	changed []changedRow
}

// changedRow is a row of a held group whose data changed since the loader last wrote it.
type changedRow struct {
	kind   string
	key    string
	edge   bool
	build  builder
	labels []string
	row    cypher.Row
	src    string
	rec    Owned
	ok     bool
}

// writeGroup queues every node of group, then every relationship, for the group's graph. On a
// GraphPerGroup dialect it first creates the graph's schema (cypher.PreLoad). A held group whose
// graph lacks its uuid constraints is first repaired (repairGroup).
func (l *Loader) writeGroup(ctx context.Context, w *writer, c *chunk, stmts *statements, src sinks.Source, group string, mode cypher.Write) error {
	target := l.graphOf(group)
	if l.o.Dialect.GraphPerGroup() {
		if err := l.schema(ctx, target, cypher.PreLoad(l.o.Dialect, l.schemaOptions())); err != nil {
			return err
		}
		if err := l.awaitConstraints(ctx, target); err != nil {
			return err
		}
	}
	own, err := l.readOwn(ctx, group)
	if err != nil {
		return err
	}
	c.setOwn(own)
	if mode != cypher.Create && l.unenforced(target) {
		if err := l.repairGroup(ctx, src, own, target); err != nil {
			return fmt.Errorf("repairing duplicates: %w", err)
		}
	}
	if mode == cypher.Merge && l.o.Foreign == ForeignKeep {
		mode = cypher.Keep
	}
	gw := &groupWriter{l: l, w: w, c: c, stmts: stmts, group: group, graph: target, mode: mode, own: own}
	return gw.write(ctx, src)
}

func (gw *groupWriter) write(ctx context.Context, src sinks.Source) error {
	group := gw.group
	edges, err := sinks.EntityEdges(ctx, src, group)
	if err != nil {
		return err
	}
	if err := sinks.EachEpisode(ctx, src, group, func(e graph.Episode) error {
		gw.own.episodes[e.UUID] = e.ReferenceTime
		return gw.add(ctx, cypher.LabelEpisodic, "episode", false, cypher.EpisodeStatement, nil, cypher.EpisodeRow(e, edges[e.UUID]))
	}); err != nil {
		return fmt.Errorf("writing episodes: %w", err)
	}
	if err := src.EachEntity(ctx, group, func(e graph.Entity) error {
		labels := cypher.EntityLabels(e)
		for _, r := range reservedLabels {
			if slices.Contains(labels, r) {
				return fmt.Errorf("entity %s: label %s is reserved", e.UUID, r)
			}
		}
		build := func(d cypher.Dialect, m cypher.Write) (string, error) { return cypher.EntityStatement(d, m, labels) }
		if err := gw.add(ctx, cypher.LabelEntity, "entity:"+strings.Join(labels, ":"), false, build, labels, cypher.EntityRow(e)); err != nil {
			return fmt.Errorf("entity %s: %w", e.UUID, err)
		}
		return nil
	}); err != nil {
		return fmt.Errorf("writing entities: %w", err)
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		return gw.add(ctx, cypher.LabelCommunity, "community", false, cypher.CommunityStatement, nil, cypher.CommunityRow(x))
	}); err != nil {
		return fmt.Errorf("writing communities: %w", err)
	}
	// Changed nodes are written before any relationship is queued, so endpoints exist.
	if err := gw.flushChanged(ctx); err != nil {
		return err
	}
	if err := gw.writeEdges(ctx, src); err != nil {
		return err
	}
	return gw.flushChanged(ctx)
}

// writeEdges queues the RELATES_TO, MENTIONS and HAS_MEMBER rows of the group.
func (gw *groupWriter) writeEdges(ctx context.Context, src sinks.Source) error {
	group := gw.group
	if err := src.EachFact(ctx, group, func(f graph.Fact) error {
		return gw.add(ctx, cypher.TypeRelatesTo, "fact", true, cypher.FactStatement, nil, cypher.FactRow(f))
	}); err != nil {
		return fmt.Errorf("writing facts: %w", err)
	}
	if err := src.EachMention(ctx, group, func(m graph.Mention) error {
		return gw.add(ctx, cypher.TypeMentions, "mention", true, cypher.MentionStatement, nil, cypher.MentionRow(m))
	}); err != nil {
		return fmt.Errorf("writing mentions: %w", err)
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		for _, r := range cypher.HasMemberRows(x) {
			if err := gw.add(ctx, cypher.TypeHasMember, "has_member", true, cypher.HasMemberStatement, nil, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("writing community members: %w", err)
	}
	return nil
}

// add records a row of kind in the chunk and the record, and queues it: with the group's mode,
// or, for a held group under sink.foreign: keep, as Keep when the loader's data for it did not
// change since it last wrote it, else after reconciling (flushChanged).
func (gw *groupWriter) add(ctx context.Context, kind, key string, edge bool, build builder, labels []string, row cypher.Row) error {
	id, _ := row[cypher.KeyUUID].(string)
	if err := gw.c.add(kind, id, labels); err != nil {
		return err
	}
	src, written := gw.l.hashes(row)
	k := ownKey{kind, id}
	rec, ok := gw.own.rec[k]
	if !ok {
		gw.w.claim(Owned{Group: gw.group, Kind: kind, UUID: id})
	}
	props, _ := row[cypher.KeyProps].(cypher.Row)
	if gw.mode == cypher.Keep {
		if recSrc, _ := splitHash(rec.Hash); !ok || recSrc != src {
			if len(gw.changed) > 0 && gw.changed[0].kind != kind {
				if err := gw.flushChanged(ctx); err != nil {
					return err
				}
			}
			gw.changed = append(gw.changed, changedRow{kind: kind, key: key, edge: edge, build: build, labels: labels, row: row,
				src: src, rec: rec, ok: ok})
			if len(gw.changed) >= gw.l.o.BatchSize {
				return gw.flushChanged(ctx)
			}
			return nil
		}
		gw.own.out = append(gw.own.out, rec)
		gw.l.count(func(r *Result) { r.Unchanged++ })
	} else {
		gw.own.out = append(gw.own.out, Owned{Kind: kind, UUID: id, Hash: src + " " + written,
			Extra: gw.l.extraOf(kind, labels, props).encode()})
	}
	st, err := gw.stmts.get(key, gw.mode, edge, build)
	if err != nil {
		return err
	}
	return gw.w.add(ctx, gw.graph, st, row)
}

// flushChanged reads what the database holds of the changed rows waiting (all of one kind),
// reconciles each (reconcile) and queues it with cypher.Update.
func (gw *groupWriter) flushChanged(ctx context.Context) error {
	if len(gw.changed) == 0 {
		return nil
	}
	rows := gw.changed
	gw.changed = nil
	kind := rows[0].kind
	q, err := cypher.ReadProps(gw.l.o.Dialect, kind, rows[0].edge)
	if err != nil {
		return err
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i], _ = r.row[cypher.KeyUUID].(string)
	}
	// The batch in flight ends first: reads and writes of a group keep one order.
	if err := gw.w.wait(); err != nil {
		return err
	}
	have := map[string]map[string]any{}
	err = gw.l.retrier().do(ctx, func(ctx context.Context) error {
		clear(have)
		return gw.l.ex.query(ctx, gw.graph, q, map[string]any{"uuids": ids}, func(v []any) error {
			id, _ := v[0].(string)
			have[id] = propsOf(v[1])
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("reading the %s the loader wrote before: %w", kind, err)
	}
	for i, r := range rows {
		props, _ := r.row[cypher.KeyProps].(cypher.Row)
		rc := gw.l.reconcile(kind, props, have[ids[i]], r.rec, r.ok, gw.own)
		gw.l.count(func(res *Result) {
			if rc.overwritten {
				res.OverwrittenOnlineEdits++
				if len(res.OverwrittenSample) < maxSample {
					res.OverwrittenSample = append(res.OverwrittenSample, ids[i])
				}
			}
			if rc.closureKept {
				res.OnlineClosuresKept++
			}
		})
		row := make(cypher.Row, len(r.row))
		for k, v := range r.row {
			row[k] = v
		}
		row[cypher.KeyProps] = rc.props
		gw.own.out = append(gw.own.out, Owned{Kind: kind, UUID: ids[i], Hash: r.src + " " + hashProps(gw.l.o.Dialect, rc.props, nil),
			Extra: gw.l.extraOf(kind, r.labels, props).encode()})
		st, err := gw.stmts.get(r.key, cypher.Update, r.edge, r.build)
		if err != nil {
			return err
		}
		if err := gw.w.add(ctx, gw.graph, st, row); err != nil {
			return err
		}
	}
	return nil
}
