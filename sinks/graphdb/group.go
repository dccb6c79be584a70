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

// get returns the batch statement of key written with mode; a CREATE statement carries its
// MERGE form for retries.
func (s *statements) get(key string, mode cypher.Write, edge bool, build func(cypher.Dialect, cypher.Write) (string, error)) (stmt, error) {
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

// writeGroup queues every node of group, then every relationship, for the group's graph. On a
// GraphPerGroup dialect it first creates the graph's schema (cypher.PreLoad).
func (l *Loader) writeGroup(ctx context.Context, w *writer, c *chunk, stmts *statements, src sinks.Source, group string, mode cypher.Write) error {
	target := l.graphOf(group)
	if l.o.Dialect.GraphPerGroup() {
		if err := l.schema(ctx, target, cypher.PreLoad(l.o.Dialect, l.schemaOptions())); err != nil {
			return err
		}
	}
	edges, err := sinks.EntityEdges(ctx, src, group)
	if err != nil {
		return err
	}
	write := func(kind, uuid string, labels []string, st stmt, row cypher.Row) error {
		if err := c.add(kind, uuid, labels); err != nil {
			return err
		}
		return w.add(ctx, target, st, row)
	}
	episode, err := stmts.get("episode", mode, false, cypher.EpisodeStatement)
	if err != nil {
		return err
	}
	if err := sinks.EachEpisode(ctx, src, group, func(e graph.Episode) error {
		return write(cypher.LabelEpisodic, e.UUID, nil, episode, cypher.EpisodeRow(e, edges[e.UUID]))
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
		st, err := stmts.get("entity:"+strings.Join(labels, ":"), mode, false, func(d cypher.Dialect, m cypher.Write) (string, error) {
			return cypher.EntityStatement(d, m, labels)
		})
		if err != nil {
			return fmt.Errorf("entity %s: %w", e.UUID, err)
		}
		return write(cypher.LabelEntity, e.UUID, labels, st, cypher.EntityRow(e))
	}); err != nil {
		return fmt.Errorf("writing entities: %w", err)
	}
	community, err := stmts.get("community", mode, false, cypher.CommunityStatement)
	if err != nil {
		return err
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		return write(cypher.LabelCommunity, x.UUID, nil, community, cypher.CommunityRow(x))
	}); err != nil {
		return fmt.Errorf("writing communities: %w", err)
	}
	return writeEdges(ctx, src, group, stmts, mode, write)
}

// writeEdges queues the RELATES_TO, MENTIONS and HAS_MEMBER rows of one group.
func writeEdges(ctx context.Context, src sinks.Source, group string, stmts *statements, mode cypher.Write, write func(kind, uuid string, labels []string, st stmt, row cypher.Row) error) error {
	fact, err := stmts.get("fact", mode, true, cypher.FactStatement)
	if err != nil {
		return err
	}
	mention, err := stmts.get("mention", mode, true, cypher.MentionStatement)
	if err != nil {
		return err
	}
	member, err := stmts.get("has_member", mode, true, cypher.HasMemberStatement)
	if err != nil {
		return err
	}
	if err := src.EachFact(ctx, group, func(f graph.Fact) error {
		return write(cypher.TypeRelatesTo, f.UUID, nil, fact, cypher.FactRow(f))
	}); err != nil {
		return fmt.Errorf("writing facts: %w", err)
	}
	if err := src.EachMention(ctx, group, func(m graph.Mention) error {
		return write(cypher.TypeMentions, m.UUID, nil, mention, cypher.MentionRow(m))
	}); err != nil {
		return fmt.Errorf("writing mentions: %w", err)
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		for _, r := range cypher.HasMemberRows(x) {
			if err := write(cypher.TypeHasMember, r[cypher.KeyUUID].(string), nil, member, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("writing community members: %w", err)
	}
	return nil
}
