package graphdb

import (
	"context"
	"fmt"
	"slices"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// repairGroup removes the extra copies of uuids in a held group before it is written, when its
// graph lacks a uuid uniqueness constraint (a load of an older version, or two loads at once
// into a database without constraints, left some uuids twice; a write by uuid would match every
// copy). For each node uuid the loader owns (its record, or what the source holds of the group;
// with sink.foreign: delete every uuid) the copy with the lowest element id is kept, the
// relationships of the others are moved onto it (cypher.Relink: every type they have) and the
// others deleted; then every relationship uuid left more than once between the same two nodes
// keeps one copy. On FalkorDB the graph's constraints are then created again.
func (l *Loader) repairGroup(ctx context.Context, src sinks.Source, own *groupOwn, graph string) error {
	before, err := l.duplicates(ctx, graph, own.group)
	if err != nil || len(before) == 0 {
		return err
	}
	var ours map[ownKey]bool
	if l.o.Foreign != ForeignDelete {
		if ours, err = sourceUUIDs(ctx, src, own.group); err != nil {
			return err
		}
		for k := range own.rec {
			ours[k] = true
		}
	}
	removed := 0
	for _, label := range settleNodes {
		var ids []string
		for _, id := range before[label] {
			if ours == nil || ours[ownKey{label, id}] {
				ids = append(ids, id)
			} else {
				l.o.Log.Warn("a uuid the loader did not write is held twice; leaving it", "label", label, "uuid", id, "group", own.group)
			}
		}
		n, err := l.repairNodes(ctx, graph, label, ids)
		if err != nil {
			return err
		}
		removed += n
	}
	for _, t := range settleEdges {
		if len(before[t]) == 0 && removed == 0 {
			continue
		}
		q, err := cypher.DuplicateEdges(l.o.Dialect, t)
		if err != nil {
			return err
		}
		dups, err := l.duplicateUUIDs(ctx, graph, q, own.group)
		if err != nil {
			return err
		}
		if len(dups) == 0 {
			continue
		}
		del, err := cypher.DeleteEdgeCopies(l.o.Dialect, t)
		if err != nil {
			return err
		}
		if err := l.byUUID(ctx, graph, del, dups.ids()); err != nil {
			return fmt.Errorf("removing extra copies of %s relationships: %w", t, err)
		}
		after, err := l.duplicateUUIDs(ctx, graph, q, own.group)
		if err != nil {
			return err
		}
		removed += dups.extra() - after.extra()
	}
	l.count(func(r *Result) { r.DuplicatesRepaired += removed })
	l.o.Log.Warn("repaired uuids held more than once", "group", own.group, "copies_removed", removed)
	if l.o.Dialect.GraphPerGroup() {
		return l.retryMissing(ctx, &graph)
	}
	return nil
}

// dupCounts maps a duplicated uuid to its number of copies.
type dupCounts map[string]int64

func (d dupCounts) ids() []string {
	out := make([]string, 0, len(d))
	for id := range d {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// extra is the number of copies beyond one.
func (d dupCounts) extra() int {
	n := 0
	for _, c := range d {
		n += int(c) - 1
	}
	return n
}

// duplicates lists, per label and type, the uuids of group held more than once in graph.
func (l *Loader) duplicates(ctx context.Context, graph, group string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, kind := range append(append([]string{}, settleNodes...), settleEdges...) {
		var q string
		var err error
		if slices.Contains(settleNodes, kind) {
			q, err = cypher.DuplicateNodes(l.o.Dialect, kind)
		} else {
			q, err = cypher.DuplicateEdges(l.o.Dialect, kind)
		}
		if err != nil {
			return nil, err
		}
		d, err := l.duplicateUUIDs(ctx, graph, q, group)
		if err != nil {
			return nil, err
		}
		if len(d) > 0 {
			out[kind] = d.ids()
		}
	}
	return out, nil
}

// duplicateUUIDs runs a DuplicateNodes or DuplicateEdges query for group.
func (l *Loader) duplicateUUIDs(ctx context.Context, graph, q, group string) (dupCounts, error) {
	d := dupCounts{}
	err := l.retrier().do(ctx, func(ctx context.Context) error {
		clear(d)
		return l.ex.query(ctx, graph, q, map[string]any{"groups": []string{group}}, func(v []any) error {
			id, _ := v[0].(string)
			n, _ := v[1].(int64)
			d[id] = n
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("looking for uuids held twice in group %s: %w", group, err)
	}
	return d, nil
}

// repairNodes keeps one copy of each of ids (label nodes) in graph: the others' relationships
// move onto it and they are deleted. It returns the copies deleted.
func (l *Loader) repairNodes(ctx context.Context, graph, label string, ids []string) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	q, err := cypher.NodeCopies(l.o.Dialect, label)
	if err != nil {
		return 0, err
	}
	var pairs []any
	var dups []any
	err = l.retrier().do(ctx, func(ctx context.Context) error {
		pairs, dups = nil, nil
		var cur string
		var keep any
		return l.ex.query(ctx, graph, q, map[string]any{"uuids": ids}, func(v []any) error {
			id, _ := v[0].(string)
			if id != cur {
				cur, keep = id, v[1]
				return nil
			}
			pairs = append(pairs, map[string]any{"keep": keep, "dup": v[1]})
			dups = append(dups, v[1])
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("reading the copies of %s nodes: %w", label, err)
	}
	if len(dups) == 0 {
		return 0, nil
	}
	var types []string
	err = l.retrier().do(ctx, func(ctx context.Context) error {
		types = nil
		return l.ex.query(ctx, graph, cypher.AttachedTypes(l.o.Dialect), map[string]any{"ids": dups}, func(v []any) error {
			t, _ := v[0].(string)
			types = append(types, t)
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("reading the relationships of %s copies: %w", label, err)
	}
	slices.Sort(types)
	for _, t := range types {
		if !cypher.ValidIdentifier(t) {
			l.o.Log.Warn("not moving relationships of a type that is not a plain identifier; they go with the copy", "type", t)
			continue
		}
		for _, out := range []bool{true, false} {
			q, err := cypher.Relink(l.o.Dialect, t, out)
			if err != nil {
				return 0, err
			}
			if err := l.retrier().do(ctx, func(ctx context.Context) error {
				return l.ex.exec(ctx, graph, cypher.Statement{Cypher: q}, map[string]any{"pairs": pairs})
			}); err != nil {
				return 0, fmt.Errorf("moving %s relationships onto the %s copies kept: %w", t, label, err)
			}
		}
	}
	if err := l.retrier().do(ctx, func(ctx context.Context) error {
		return l.ex.exec(ctx, graph, cypher.Statement{Cypher: cypher.DeleteByID(l.o.Dialect)}, map[string]any{"ids": dups})
	}); err != nil {
		return 0, fmt.Errorf("deleting the extra copies of %s nodes: %w", label, err)
	}
	return len(dups), nil
}

// sourceUUIDs lists the elements the source holds of group.
func sourceUUIDs(ctx context.Context, src sinks.Source, group string) (map[ownKey]bool, error) {
	out := map[ownKey]bool{}
	eps, err := src.GroupEpisodes(ctx, group)
	if err != nil {
		return nil, err
	}
	for _, e := range eps {
		out[ownKey{cypher.LabelEpisodic, e.UUID}] = true
	}
	steps := []func() error{
		func() error {
			return src.EachEntity(ctx, group, func(e graph.Entity) error { out[ownKey{cypher.LabelEntity, e.UUID}] = true; return nil })
		},
		func() error {
			return src.EachCommunity(ctx, group, func(c graph.Community) error {
				out[ownKey{cypher.LabelCommunity, c.UUID}] = true
				for _, r := range cypher.HasMemberRows(c) {
					id, _ := r[cypher.KeyUUID].(string)
					out[ownKey{cypher.TypeHasMember, id}] = true
				}
				return nil
			})
		},
		func() error {
			return src.EachFact(ctx, group, func(f graph.Fact) error { out[ownKey{cypher.TypeRelatesTo, f.UUID}] = true; return nil })
		},
		func() error {
			return src.EachMention(ctx, group, func(m graph.Mention) error { out[ownKey{cypher.TypeMentions, m.UUID}] = true; return nil })
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return nil, fmt.Errorf("listing what the source holds of group %s: %w", group, err)
		}
	}
	return out, nil
}
