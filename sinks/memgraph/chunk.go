package memgraph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// chunk is a run of whole groups written together and then settled: it remembers the uuid of
// every node and relationship written, per label or type, and the extra labels of each entity.
type chunk struct {
	groups []string
	keep   map[string]map[string]bool // label or type → uuids written
	labels map[string][]string        // entity uuid → extra labels written
	rows   int
}

func newChunk() *chunk {
	return &chunk{keep: map[string]map[string]bool{}, labels: map[string][]string{}}
}

func (c *chunk) add(kind, uuid string) {
	if c.keep[kind] == nil {
		c.keep[kind] = map[string]bool{}
	}
	c.keep[kind][uuid] = true
	c.rows++
}

// reservedLabels may not be custom entity labels: their counts would mix with other nodes.
var reservedLabels = []string{cypher.LabelEpisodic, cypher.LabelCommunity}

// chunks writes groups chunk by chunk; each chunk is flushed and settled. The groups of every
// settled chunk but the last go to early (when not nil); the others are returned as held. It
// stops before the next group once Options.Stop is closed, and reports that.
func (l *Loader) chunks(ctx context.Context, src sinks.Source, groups []string, early func(context.Context, []string) error) (held []string, stopped bool, err error) {
	w := newWriter(l)
	c := newChunk()
	stmts := map[string]string{}
	end := func() error {
		if len(c.groups) == 0 {
			return nil
		}
		if err := w.flush(ctx); err != nil {
			return err
		}
		if err := l.settle(ctx, c); err != nil {
			return err
		}
		l.res.Groups += len(c.groups)
		if early != nil && len(held) > 0 {
			if err := early(ctx, held); err != nil {
				return fmt.Errorf("recording loaded groups: %w", err)
			}
			held = nil
		}
		held = append(held, c.groups...)
		c = newChunk()
		return nil
	}
	for _, g := range groups {
		if l.stopped() {
			stopped = true
			break
		}
		c.groups = append(c.groups, g)
		if err := l.writeGroup(ctx, w, c, stmts, src, g); err != nil {
			return nil, false, fmt.Errorf("writing group %s: %w", g, err)
		}
		if c.rows >= l.o.ChunkRows || len(c.groups) >= maxChunkGroups {
			if err := end(); err != nil {
				return nil, false, err
			}
		}
	}
	if err := end(); err != nil {
		return nil, false, err
	}
	return held, stopped, nil
}

// stopped reports whether Options.Stop has been closed.
func (l *Loader) stopped() bool {
	select {
	case <-l.o.Stop:
		return true
	default:
		return false
	}
}

// stmt builds a statement once per text key.
func (l *Loader) stmt(cache map[string]string, key string, build func() (string, error)) (string, error) {
	if s, ok := cache[key]; ok {
		return s, nil
	}
	s, err := build()
	if err != nil {
		return "", err
	}
	cache[key] = s
	return s, nil
}

// writeGroup queues every node of group, then every relationship.
func (l *Loader) writeGroup(ctx context.Context, w *writer, c *chunk, stmts map[string]string, src sinks.Source, group string) error {
	d := l.o.Dialect
	edges, err := sinks.EntityEdges(ctx, src, group)
	if err != nil {
		return err
	}
	node := func(kind, uuid, stmt string, row cypher.Row) error {
		c.add(kind, uuid)
		return w.node(ctx, stmt, row)
	}
	edge := func(kind, uuid, stmt string, row cypher.Row) error {
		c.add(kind, uuid)
		return w.edge(ctx, stmt, row)
	}
	episode, err := l.stmt(stmts, "episode", func() (string, error) { return cypher.EpisodeMerge(d) })
	if err != nil {
		return err
	}
	if err := sinks.EachEpisode(ctx, src, group, func(e graph.Episode) error {
		return node(cypher.LabelEpisodic, e.UUID, episode, cypher.EpisodeRow(e, edges[e.UUID]))
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
		s, err := l.stmt(stmts, "entity:"+strings.Join(labels, ":"), func() (string, error) { return cypher.EntityMerge(d, labels) })
		if err != nil {
			return fmt.Errorf("entity %s: %w", e.UUID, err)
		}
		c.labels[e.UUID] = labels
		return node(cypher.LabelEntity, e.UUID, s, cypher.EntityRow(e))
	}); err != nil {
		return fmt.Errorf("writing entities: %w", err)
	}
	community, err := l.stmt(stmts, "community", func() (string, error) { return cypher.CommunityMerge(d) })
	if err != nil {
		return err
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		return node(cypher.LabelCommunity, x.UUID, community, cypher.CommunityRow(x))
	}); err != nil {
		return fmt.Errorf("writing communities: %w", err)
	}
	return l.writeEdges(ctx, src, group, stmts, edge)
}

// writeEdges queues the RELATES_TO, MENTIONS and HAS_MEMBER rows of one group.
func (l *Loader) writeEdges(ctx context.Context, src sinks.Source, group string, stmts map[string]string, edge func(kind, uuid, stmt string, row cypher.Row) error) error {
	d := l.o.Dialect
	fact, err := l.stmt(stmts, "fact", func() (string, error) { return cypher.FactMerge(d) })
	if err != nil {
		return err
	}
	mention, err := l.stmt(stmts, "mention", func() (string, error) { return cypher.MentionMerge(d) })
	if err != nil {
		return err
	}
	member, err := l.stmt(stmts, "has_member", func() (string, error) { return cypher.HasMemberMerge(d) })
	if err != nil {
		return err
	}
	if err := src.EachFact(ctx, group, func(f graph.Fact) error { return edge(cypher.TypeRelatesTo, f.UUID, fact, cypher.FactRow(f)) }); err != nil {
		return fmt.Errorf("writing facts: %w", err)
	}
	if err := src.EachMention(ctx, group, func(m graph.Mention) error { return edge(cypher.TypeMentions, m.UUID, mention, cypher.MentionRow(m)) }); err != nil {
		return fmt.Errorf("writing mentions: %w", err)
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		for _, r := range cypher.HasMemberRows(x) {
			if err := edge(cypher.TypeHasMember, r[cypher.KeyUUID].(string), member, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("writing community members: %w", err)
	}
	return nil
}
