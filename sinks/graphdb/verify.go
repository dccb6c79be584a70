package graphdb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// count is one label or type to count after a chunk, with the rows written for it.
type count struct {
	key    string // "Entity", "Entity:Person", "RELATES_TO"
	base   string // node label or relationship type
	label  string // an entity's extra label, or ""
	edge   bool
	want   int
	params map[string][]string // graph → the uuids written (counting by uuid)
}

// counts lists what to count for a chunk: each base label, each extra entity label written, and
// each relationship type, with the uuids written of each per graph (from the groups' records).
func (l *Loader) counts(c *chunk) []count {
	var out []count
	idx := map[string]int{}
	add := func(key, base, label string, edge bool) *count {
		i, ok := idx[key]
		if !ok {
			i = len(out)
			idx[key] = i
			out = append(out, count{key: key, base: base, label: label, edge: edge, params: map[string][]string{}})
		}
		return &out[i]
	}
	for _, label := range settleNodes {
		add(label, label, "", false)
	}
	perLabel := map[string]bool{}
	for _, labels := range c.labels {
		for _, x := range labels {
			perLabel[x] = true
		}
	}
	extra := make([]string, 0, len(perLabel))
	for x := range perLabel {
		extra = append(extra, x)
	}
	slices.Sort(extra)
	for _, x := range extra {
		add(cypher.LabelEntity+":"+x, cypher.LabelEntity, x, false)
	}
	for _, t := range settleEdges {
		add(t, t, "", true)
	}
	for _, g := range c.groups {
		own := c.owns[g]
		if own == nil {
			continue
		}
		graph := l.graphOf(g)
		for _, o := range own.out {
			x := &out[idx[o.Kind]]
			x.want++
			x.params[graph] = append(x.params[graph], o.UUID)
			if o.Kind != cypher.LabelEntity {
				continue
			}
			for _, lb := range c.labels[o.UUID] {
				y := &out[idx[cypher.LabelEntity+":"+lb]]
				y.want++
				y.params[graph] = append(y.params[graph], o.UUID)
			}
		}
	}
	return out
}

// statement is the count statement of x: by group for a chunk of new groups (everything they
// hold was written now), by uuid otherwise (exactly the elements written, whatever other writers
// add to the groups meanwhile), reading the list parameter param.
func (x count) statement(d cypher.Dialect, held bool, param string) (string, error) {
	switch {
	case !held && x.edge:
		return cypher.CountEdges(d, x.base)
	case !held:
		return cypher.CountNodes(d, x.base, x.label)
	case x.edge:
		return cypher.CountEdgesByUUID(d, x.base, param)
	}
	return cypher.CountNodesByUUID(d, x.base, x.label, param)
}

// verify counts every label and type the chunk wrote in the database, in one query per graph
// (cypher.CountsQuery), and fails on any difference from the rows written. The counts are
// added to the result.
func (l *Loader) verify(ctx context.Context, c *chunk) error {
	cs := l.counts(c)
	got := make([]int, len(cs))
	for _, gg := range l.byGraph(c.groups) {
		stmts := make([]string, len(cs))
		params := map[string]any{"groups": gg.groups}
		for i, x := range cs {
			param := fmt.Sprintf("u%d", i)
			s, err := x.statement(l.o.Dialect, c.held, param)
			if err != nil {
				return err
			}
			stmts[i] = s
			if c.held {
				params[param] = append([]string{}, x.params[gg.graph]...)
			}
		}
		q := cypher.CountsQuery(stmts)
		part := make([]int, len(cs))
		err := l.retrier().do(ctx, func(ctx context.Context) error {
			clear(part)
			return l.ex.query(ctx, gg.graph, q, params, func(vals []any) error {
				n, _ := vals[0].(int64)
				i, ok := vals[1].(int64)
				if !ok || i < 0 || int(i) >= len(part) {
					return fmt.Errorf("unexpected count row %v", vals)
				}
				part[i] = int(n)
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("counting the nodes and relationships of %d groups: %w", len(c.groups), err)
		}
		for i, n := range part {
			got[i] += n
		}
	}
	var bad []string
	for i, x := range cs {
		switch {
		case got[i] < x.want:
			bad = append(bad, fmt.Sprintf("%s: %d in the database, %d written (%d missing: an endpoint node was absent?)", x.key, got[i], x.want, x.want-got[i]))
		case got[i] > x.want:
			bad = append(bad, fmt.Sprintf("%s: %d in the database, %d written (written twice, or by another load at the same time?)", x.key, got[i], x.want))
		}
		l.res.Counts[x.key] += got[i]
	}
	if o := l.o.Observer; o != nil {
		o.Verified(ctx, string(l.o.Dialect), len(c.groups), len(bad) > 0)
	}
	if len(bad) > 0 {
		return fmt.Errorf("verifying counts of %d groups: %s", len(c.groups), strings.Join(bad, "; "))
	}
	return nil
}
