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
	held   bool                       // some group of the chunk held nodes before it was written
	keep   map[string]map[string]bool // label or type → uuids written
	labels map[string][]string        // entity uuid → extra labels written
	rows   int
}

func newChunk() *chunk {
	return &chunk{keep: map[string]map[string]bool{}, labels: map[string][]string{}}
}

// add records a row of kind; a uuid written twice for one kind is an error (the source must
// not repeat a record, and CREATE would duplicate it).
func (c *chunk) add(kind, uuid string) error {
	if c.keep[kind] == nil {
		c.keep[kind] = map[string]bool{}
	}
	if c.keep[kind][uuid] {
		return fmt.Errorf("%s %s appears twice in the source", kind, uuid)
	}
	c.keep[kind][uuid] = true
	c.rows++
	return nil
}

// reservedLabels may not be custom entity labels: their counts would mix with other nodes.
var reservedLabels = []string{cypher.LabelEpisodic, cypher.LabelCommunity}

// chunks writes groups chunk by chunk; each chunk is flushed and settled. Groups the database
// holds no node of (heldGroups, asked for up to maxChunkGroups groups at a time before they are
// written) are written with CREATE, the others with MERGE. The groups of every settled chunk
// but the last go to early (when not nil); the others are returned as held. It stops before the
// next group once Options.Stop is closed, and reports that.
func (l *Loader) chunks(ctx context.Context, src sinks.Source, groups []string, early func(context.Context, []string) error) (held []string, stopped bool, err error) {
	w := newWriter(l)
	c := newChunk()
	stmts := map[string]stmt{}
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
	var inDB map[string]bool
	looked := 0 // groups[:looked] have been looked up
	for i, g := range groups {
		if l.stopped() {
			stopped = true
			break
		}
		if i == looked {
			window := groups[i:min(len(groups), i+maxChunkGroups)]
			if inDB, err = l.heldGroups(ctx, window); err != nil {
				return nil, false, err
			}
			looked += len(window)
		}
		mode := cypher.Create
		if inDB[g] {
			mode, c.held = cypher.Merge, true
		} else {
			l.res.FreshGroups++
		}
		c.groups = append(c.groups, g)
		if err := l.writeGroup(ctx, w, c, stmts, src, g, mode); err != nil {
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

// heldGroups returns which of groups hold an Episodic, Entity or Community node.
func (l *Loader) heldGroups(ctx context.Context, groups []string) (map[string]bool, error) {
	q, err := cypher.HeldGroups(l.o.Dialect)
	if err != nil {
		return nil, err
	}
	var out map[string]bool
	err = l.retrier().do(ctx, func(ctx context.Context) error {
		out = map[string]bool{}
		return l.ex.query(ctx, q, map[string]any{"groups": groups}, func(vals []any) error {
			g, _ := vals[0].(string)
			out[g] = true
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("looking up which groups the database holds: %w", err)
	}
	return out, nil
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

// statement returns the batch statement of key written with mode, built once per load; a
// CREATE statement carries its MERGE form for retries.
func (l *Loader) statement(cache map[string]stmt, key string, mode cypher.Write, edge bool, build func(cypher.Write) (string, error)) (stmt, error) {
	k := fmt.Sprint(key, "/", mode)
	if s, ok := cache[k]; ok {
		return s, nil
	}
	text, err := build(mode)
	if err != nil {
		return stmt{}, err
	}
	s := stmt{text: text, edge: edge}
	if mode == cypher.Create {
		if s.retry, err = build(cypher.Merge); err != nil {
			return stmt{}, err
		}
	}
	cache[k] = s
	return s, nil
}

// writeGroup queues every node of group, then every relationship.
func (l *Loader) writeGroup(ctx context.Context, w *writer, c *chunk, stmts map[string]stmt, src sinks.Source, group string, mode cypher.Write) error {
	d := l.o.Dialect
	edges, err := sinks.EntityEdges(ctx, src, group)
	if err != nil {
		return err
	}
	write := func(kind, uuid string, st stmt, row cypher.Row) error {
		if err := c.add(kind, uuid); err != nil {
			return err
		}
		return w.add(ctx, st, row)
	}
	episode, err := l.statement(stmts, "episode", mode, false, func(m cypher.Write) (string, error) { return cypher.EpisodeStatement(d, m) })
	if err != nil {
		return err
	}
	if err := sinks.EachEpisode(ctx, src, group, func(e graph.Episode) error {
		return write(cypher.LabelEpisodic, e.UUID, episode, cypher.EpisodeRow(e, edges[e.UUID]))
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
		st, err := l.statement(stmts, "entity:"+strings.Join(labels, ":"), mode, false, func(m cypher.Write) (string, error) {
			return cypher.EntityStatement(d, m, labels)
		})
		if err != nil {
			return fmt.Errorf("entity %s: %w", e.UUID, err)
		}
		c.labels[e.UUID] = labels
		return write(cypher.LabelEntity, e.UUID, st, cypher.EntityRow(e))
	}); err != nil {
		return fmt.Errorf("writing entities: %w", err)
	}
	community, err := l.statement(stmts, "community", mode, false, func(m cypher.Write) (string, error) { return cypher.CommunityStatement(d, m) })
	if err != nil {
		return err
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		return write(cypher.LabelCommunity, x.UUID, community, cypher.CommunityRow(x))
	}); err != nil {
		return fmt.Errorf("writing communities: %w", err)
	}
	return l.writeEdges(ctx, src, group, stmts, mode, write)
}

// writeEdges queues the RELATES_TO, MENTIONS and HAS_MEMBER rows of one group.
func (l *Loader) writeEdges(ctx context.Context, src sinks.Source, group string, stmts map[string]stmt, mode cypher.Write, write func(kind, uuid string, st stmt, row cypher.Row) error) error {
	d := l.o.Dialect
	fact, err := l.statement(stmts, "fact", mode, true, func(m cypher.Write) (string, error) { return cypher.FactStatement(d, m) })
	if err != nil {
		return err
	}
	mention, err := l.statement(stmts, "mention", mode, true, func(m cypher.Write) (string, error) { return cypher.MentionStatement(d, m) })
	if err != nil {
		return err
	}
	member, err := l.statement(stmts, "has_member", mode, true, func(m cypher.Write) (string, error) { return cypher.HasMemberStatement(d, m) })
	if err != nil {
		return err
	}
	if err := src.EachFact(ctx, group, func(f graph.Fact) error {
		return write(cypher.TypeRelatesTo, f.UUID, fact, cypher.FactRow(f))
	}); err != nil {
		return fmt.Errorf("writing facts: %w", err)
	}
	if err := src.EachMention(ctx, group, func(m graph.Mention) error {
		return write(cypher.TypeMentions, m.UUID, mention, cypher.MentionRow(m))
	}); err != nil {
		return fmt.Errorf("writing mentions: %w", err)
	}
	if err := src.EachCommunity(ctx, group, func(x graph.Community) error {
		for _, r := range cypher.HasMemberRows(x) {
			if err := write(cypher.TypeHasMember, r[cypher.KeyUUID].(string), member, r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return fmt.Errorf("writing community members: %w", err)
	}
	return nil
}
