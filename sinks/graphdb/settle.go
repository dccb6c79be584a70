package graphdb

import (
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// Node labels and relationship types a chunk settles, relationships first so that stale
// relationships are gone before stale nodes are detached.
var (
	settleEdges = []string{cypher.TypeRelatesTo, cypher.TypeMentions, cypher.TypeHasMember}
	settleNodes = []string{cypher.LabelEpisodic, cypher.LabelEntity, cypher.LabelCommunity}
)

// settle makes the chunk's groups in the database hold exactly what the loader wrote of them,
// beside what other writers wrote: it lists each label's nodes and each type's relationships
// of the groups; of those not written now it deletes the ones the loader wrote before (the
// ownership record: facts merged away, communities recomputed, episodes forgotten) and keeps
// the others, counted as foreign (with sink.foreign: delete it deletes every one); it removes
// the entity labels it wrote before and no longer writes (every label not written, with
// sink.foreign: delete); it fails when something written is missing (a relationship whose
// endpoint was absent); and it verifies the written elements by counting them (verify). Lists
// and deletes run once per graph of the chunk (byGraph). A chunk of groups that held no node
// before it was written (all CREATEd) has nothing stale or foreign: only the counts are
// checked. Once verified, each group's record is replaced by what was written (Owner.Set). On a
// GraphPerGroup dialect each group's graph first gets its cypher.PostLoad statements.
func (l *Loader) settle(ctx context.Context, c *chunk) error {
	if l.o.Dialect.GraphPerGroup() {
		for _, gg := range l.byGraph(c.groups) {
			if err := l.schema(ctx, gg.graph, cypher.PostLoad(l.o.Dialect, l.schemaOptions())); err != nil {
				return err
			}
		}
	}
	if c.held {
		owned := c.owned()
		parts := l.byGraph(c.groups)
		for _, t := range settleEdges {
			if err := l.settleKind(ctx, c, parts, t, owned, true); err != nil {
				return err
			}
		}
		for _, label := range settleNodes {
			if err := l.settleKind(ctx, c, parts, label, owned, false); err != nil {
				return err
			}
		}
	}
	if err := l.verify(ctx, c); err != nil {
		return err
	}
	if err := l.leases.check(); err != nil {
		return err
	}
	for _, g := range c.groups {
		if own := c.owns[g]; own != nil {
			if err := l.o.Owner.Set(ctx, g, own.out); err != nil {
				return fmt.Errorf("recording what the loader wrote of group %s: %w", g, err)
			}
		}
	}
	return nil
}

// settleKind deletes the stale elements of one label or type in each graph's groups, counts the
// foreign ones and, for entities, removes the labels the loader no longer writes.
func (l *Loader) settleKind(ctx context.Context, c *chunk, parts []graphGroups, kind string, owned map[ownKey]Owned, edge bool) error {
	var list, del string
	var err error
	if edge {
		list, err = cypher.ListEdges(l.o.Dialect, kind)
		if err == nil {
			del, err = cypher.DeleteEdges(l.o.Dialect, kind)
		}
	} else {
		list, err = cypher.ListNodes(l.o.Dialect, kind)
		if err == nil {
			del, err = cypher.DeleteNodes(l.o.Dialect, kind)
		}
	}
	if err != nil {
		return err
	}
	what := kind + " nodes"
	if edge {
		what = kind + " relationships"
	}
	seen := 0
	for _, gg := range parts {
		d, err := l.diff(ctx, gg, list, kind, c, owned)
		if err != nil {
			return fmt.Errorf("listing %s: %w", what, err)
		}
		if err := l.byUUID(ctx, gg.graph, del, d.stale); err != nil {
			return fmt.Errorf("deleting stale %s: %w", what, err)
		}
		l.res.Deleted += len(d.stale)
		if d.foreign > 0 {
			l.res.ForeignKept += d.foreign
			l.res.ForeignKinds[kind] += d.foreign
		}
		if err := l.removeLabels(ctx, gg.graph, kind, d.fix); err != nil {
			return err
		}
		seen += d.seen
	}
	if err := missing(seen, len(c.keep[kind])); err != nil {
		return fmt.Errorf("listing %s: %w", what, err)
	}
	return nil
}

// missing fails when fewer of the uuids written were listed than were written.
func missing(seen, written int) error {
	if n := written - seen; n > 0 {
		return fmt.Errorf("%d of %d written are missing (an endpoint node was absent?)", n, written)
	}
	return nil
}

// listed is what a list statement found in one graph's groups, against what was written.
type listed struct {
	stale   []string            // not written now, and the loader's (or sink.foreign: delete): to delete
	foreign int                 // not written now, another writer's: kept
	seen    int                 // written now and listed
	fix     map[string][]string // label → written entities that carry it and should not
}

// diff lists the uuids (and, for nodes, labels) of kind in the groups of one graph and sorts
// them out against what the chunk wrote and what the record held before (owned).
func (l *Loader) diff(ctx context.Context, gg graphGroups, list, kind string, c *chunk, owned map[ownKey]Owned) (listed, error) {
	params := map[string]any{"groups": gg.groups}
	keep := c.keep[kind]
	var d listed
	err := l.retrier().do(ctx, func(ctx context.Context) error {
		d = listed{fix: map[string][]string{}}
		return l.ex.query(ctx, gg.graph, list, params, func(vals []any) error {
			id, _ := vals[0].(string)
			if !keep[id] {
				if _, ours := owned[ownKey{kind, id}]; ours || l.o.Foreign == ForeignDelete {
					d.stale = append(d.stale, id)
				} else {
					d.foreign++
				}
				return nil
			}
			d.seen++
			if kind != cypher.LabelEntity || len(vals) < 2 {
				return nil
			}
			rec, hadRec := owned[ownKey{kind, id}]
			wrote := decodeExtra(rec.Extra).Labels
			have, _ := vals[1].([]any)
			for _, h := range have {
				s, _ := h.(string)
				if s == cypher.LabelEntity || slices.Contains(c.labels[id], s) {
					continue
				}
				if l.o.Foreign == ForeignDelete || hadRec && slices.Contains(wrote, s) {
					d.fix[s] = append(d.fix[s], id)
				}
			}
			return nil
		})
	})
	if err != nil {
		return listed{}, err
	}
	slices.Sort(d.stale)
	return d, nil
}

// removeLabels removes each stale label from its nodes in graph, labels in sorted order.
func (l *Loader) removeLabels(ctx context.Context, graph, base string, fix map[string][]string) error {
	labels := make([]string, 0, len(fix))
	for label := range fix {
		labels = append(labels, label)
	}
	slices.Sort(labels)
	for _, label := range labels {
		if !cypher.ValidIdentifier(label) {
			l.o.Log.Warn("not removing a stale label that is not a plain identifier", "label", label, "nodes", len(fix[label]))
			continue
		}
		stmt, err := cypher.RemoveLabel(l.o.Dialect, base, label)
		if err != nil {
			return err
		}
		ids := slices.Clone(fix[label])
		slices.Sort(ids)
		if err := l.byUUID(ctx, graph, stmt, ids); err != nil {
			return fmt.Errorf("removing stale label %s: %w", label, err)
		}
		l.res.LabelsRemoved += len(ids)
	}
	return nil
}

// byUUID runs stmt (reading $uuids) over ids in batches, in graph.
func (l *Loader) byUUID(ctx context.Context, graph, stmt string, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), l.o.BatchSize)
		params := map[string]any{"uuids": ids[:n]}
		err := l.retrier().do(ctx, func(ctx context.Context) error {
			return l.ex.exec(ctx, graph, cypher.Statement{Cypher: stmt}, params)
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
