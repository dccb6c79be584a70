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

// settle makes the chunk's groups in the database equal to what was written: it lists each
// label's nodes and each type's relationships of the groups, deletes those not written (facts
// merged away, communities recomputed, …), removes entity labels not written, fails when
// something written is missing (a relationship whose endpoint was absent), and finally checks
// the count of every label and type against the rows written. Lists, deletes and counts run once
// per graph of the chunk (byGraph). A chunk of groups that held no node before it was written
// (all CREATEd) has nothing stale: only the counts are checked, which also catch what is missing
// or written twice. The first chunk with a held group creates the relationship lookup indexes
// (cypher.EdgeLookups) the lists and deletes read through. On a GraphPerGroup dialect each
// group's graph first gets its cypher.PostLoad statements.
func (l *Loader) settle(ctx context.Context, c *chunk) error {
	if l.o.Dialect.GraphPerGroup() {
		for _, gg := range l.byGraph(c.groups) {
			if err := l.schema(ctx, gg.graph, cypher.PostLoad(l.o.Dialect, l.schemaOptions())); err != nil {
				return err
			}
		}
	}
	if !c.held {
		return l.verify(ctx, c)
	}
	if !l.edgeIndexes {
		if err := l.schema(ctx, l.o.Database, cypher.EdgeLookups(l.o.Dialect)); err != nil {
			return err
		}
		l.edgeIndexes = true
	}
	parts := l.byGraph(c.groups)
	for _, t := range settleEdges {
		list, err := cypher.ListEdges(l.o.Dialect, t)
		if err != nil {
			return err
		}
		del, err := cypher.DeleteEdges(l.o.Dialect, t)
		if err != nil {
			return err
		}
		seen := 0
		for _, gg := range parts {
			stale, _, n, err := l.diff(ctx, gg, list, c.keep[t], nil)
			if err != nil {
				return fmt.Errorf("listing %s relationships: %w", t, err)
			}
			if err := l.byUUID(ctx, gg.graph, del, stale); err != nil {
				return fmt.Errorf("deleting stale %s relationships: %w", t, err)
			}
			l.res.Deleted += len(stale)
			seen += n
		}
		if err := missing(seen, len(c.keep[t])); err != nil {
			return fmt.Errorf("listing %s relationships: %w", t, err)
		}
	}
	for _, label := range settleNodes {
		if err := l.settleNodes(ctx, c, parts, label); err != nil {
			return err
		}
	}
	return l.verify(ctx, c)
}

// settleNodes deletes the stale label nodes of each graph's groups and removes the entity labels
// not written.
func (l *Loader) settleNodes(ctx context.Context, c *chunk, parts []graphGroups, label string) error {
	list, err := cypher.ListNodes(l.o.Dialect, label)
	if err != nil {
		return err
	}
	del, err := cypher.DeleteNodes(l.o.Dialect, label)
	if err != nil {
		return err
	}
	var extra map[string][]string
	if label == cypher.LabelEntity {
		extra = c.labels
	}
	seen := 0
	for _, gg := range parts {
		stale, fix, n, err := l.diff(ctx, gg, list, c.keep[label], extra)
		if err != nil {
			return fmt.Errorf("listing %s nodes: %w", label, err)
		}
		if err := l.byUUID(ctx, gg.graph, del, stale); err != nil {
			return fmt.Errorf("deleting stale %s nodes: %w", label, err)
		}
		l.res.Deleted += len(stale)
		if err := l.removeLabels(ctx, gg.graph, label, fix); err != nil {
			return err
		}
		seen += n
	}
	if err := missing(seen, len(c.keep[label])); err != nil {
		return fmt.Errorf("listing %s nodes: %w", label, err)
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

// diff lists the uuids (and labels) a list statement returns for the groups of one graph and
// returns the stale ones (not in keep), the number of listed uuids that are in keep and, when
// labels is not nil, for each label a node in keep carries but was not written with, the uuids
// to remove it from.
func (l *Loader) diff(ctx context.Context, gg graphGroups, list string, keep map[string]bool, labels map[string][]string) (stale []string, fix map[string][]string, seen int, err error) {
	params := map[string]any{"groups": gg.groups}
	err = l.retrier().do(ctx, func(ctx context.Context) error {
		stale, fix, seen = nil, map[string][]string{}, 0
		return l.ex.query(ctx, gg.graph, list, params, func(vals []any) error {
			id, _ := vals[0].(string)
			if !keep[id] {
				stale = append(stale, id)
				return nil
			}
			seen++
			if labels == nil || len(vals) < 2 {
				return nil
			}
			have, _ := vals[1].([]any)
			for _, h := range have {
				s, _ := h.(string)
				if s != cypher.LabelEntity && !slices.Contains(labels[id], s) {
					fix[s] = append(fix[s], id)
				}
			}
			return nil
		})
	})
	if err != nil {
		return nil, nil, 0, err
	}
	slices.Sort(stale)
	return stale, fix, seen, nil
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
