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
// the count of every label and type against the rows written. A chunk of groups that held no
// node before it was written (all CREATEd) has nothing stale: only the counts are checked, which
// also catch what is missing or written twice. The first chunk with a held group creates the
// relationship lookup indexes (cypher.EdgeLookups) the lists and deletes read through.
func (l *Loader) settle(ctx context.Context, c *chunk) error {
	if !c.held {
		return l.verify(ctx, c)
	}
	if !l.edgeIndexes {
		if err := l.schema(ctx, cypher.EdgeLookups(l.o.Dialect)); err != nil {
			return err
		}
		l.edgeIndexes = true
	}
	groups := c.groups
	for _, t := range settleEdges {
		list, err := cypher.ListEdges(l.o.Dialect, t)
		if err != nil {
			return err
		}
		stale, _, err := l.diff(ctx, list, groups, c.keep[t], nil)
		if err != nil {
			return fmt.Errorf("listing %s relationships: %w", t, err)
		}
		del, err := cypher.DeleteEdges(l.o.Dialect, t)
		if err != nil {
			return err
		}
		if err := l.byUUID(ctx, del, stale); err != nil {
			return fmt.Errorf("deleting stale %s relationships: %w", t, err)
		}
		l.res.Deleted += len(stale)
	}
	for _, label := range settleNodes {
		list, err := cypher.ListNodes(l.o.Dialect, label)
		if err != nil {
			return err
		}
		var extra map[string][]string
		if label == cypher.LabelEntity {
			extra = c.labels
		}
		stale, fix, err := l.diff(ctx, list, groups, c.keep[label], extra)
		if err != nil {
			return fmt.Errorf("listing %s nodes: %w", label, err)
		}
		del, err := cypher.DeleteNodes(l.o.Dialect, label)
		if err != nil {
			return err
		}
		if err := l.byUUID(ctx, del, stale); err != nil {
			return fmt.Errorf("deleting stale %s nodes: %w", label, err)
		}
		l.res.Deleted += len(stale)
		if err := l.removeLabels(ctx, label, fix); err != nil {
			return err
		}
	}
	return l.verify(ctx, c)
}

// diff lists the uuids (and labels) a list statement returns for groups and returns the stale
// ones (not in keep) and, when labels is not nil, for each label a node in keep carries but was
// not written with, the uuids to remove it from. It fails when a uuid of keep is not listed.
func (l *Loader) diff(ctx context.Context, list string, groups []string, keep map[string]bool, labels map[string][]string) (stale []string, fix map[string][]string, err error) {
	params := map[string]any{"groups": groups}
	var seen int
	err = l.retrier().do(ctx, func(ctx context.Context) error {
		stale, fix, seen = nil, map[string][]string{}, 0
		return l.ex.query(ctx, list, params, func(vals []any) error {
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
		return nil, nil, err
	}
	if missing := len(keep) - seen; missing > 0 {
		return nil, nil, fmt.Errorf("%d of %d written are missing (an endpoint node was absent?)", missing, len(keep))
	}
	slices.Sort(stale)
	return stale, fix, nil
}

// removeLabels removes each stale label from its nodes, labels in sorted order.
func (l *Loader) removeLabels(ctx context.Context, base string, fix map[string][]string) error {
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
		if err := l.byUUID(ctx, stmt, ids); err != nil {
			return fmt.Errorf("removing stale label %s: %w", label, err)
		}
		l.res.LabelsRemoved += len(ids)
	}
	return nil
}

// byUUID runs stmt (reading $uuids) over ids in batches.
func (l *Loader) byUUID(ctx context.Context, stmt string, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), l.o.BatchSize)
		params := map[string]any{"uuids": ids[:n]}
		err := l.retrier().do(ctx, func(ctx context.Context) error {
			return l.ex.exec(ctx, cypher.Statement{Cypher: stmt}, params)
		})
		if err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
