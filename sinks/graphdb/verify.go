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
	key  string // "Entity", "Entity:Person", "RELATES_TO"
	stmt string
	want int
}

// counts lists what to count for a chunk: each base label, each extra entity label written, and
// each relationship type.
func (l *Loader) counts(c *chunk) ([]count, error) {
	d := l.o.Dialect
	var out []count
	for _, label := range settleNodes {
		s, err := cypher.CountNodes(d, label, "")
		if err != nil {
			return nil, err
		}
		out = append(out, count{label, s, len(c.keep[label])})
	}
	perLabel := map[string]int{}
	for _, labels := range c.labels {
		for _, x := range labels {
			perLabel[x]++
		}
	}
	extra := make([]string, 0, len(perLabel))
	for x := range perLabel {
		extra = append(extra, x)
	}
	slices.Sort(extra)
	for _, x := range extra {
		s, err := cypher.CountNodes(d, cypher.LabelEntity, x)
		if err != nil {
			return nil, err
		}
		out = append(out, count{cypher.LabelEntity + ":" + x, s, perLabel[x]})
	}
	for _, t := range settleEdges {
		s, err := cypher.CountEdges(d, t)
		if err != nil {
			return nil, err
		}
		out = append(out, count{t, s, len(c.keep[t])})
	}
	return out, nil
}

// verify counts every label and type of the chunk's groups in the database, in one query per
// graph (cypher.CountsQuery), and fails on any difference from the rows written. The counts are
// added to the result.
func (l *Loader) verify(ctx context.Context, c *chunk) error {
	cs, err := l.counts(c)
	if err != nil {
		return err
	}
	stmts := make([]string, len(cs))
	for i, x := range cs {
		stmts[i] = x.stmt
	}
	q := cypher.CountsQuery(stmts)
	got := make([]int, len(cs))
	for _, gg := range l.byGraph(c.groups) {
		part := make([]int, len(cs))
		err = l.retrier().do(ctx, func(ctx context.Context) error {
			clear(part)
			return l.ex.query(ctx, gg.graph, q, map[string]any{"groups": gg.groups}, func(vals []any) error {
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
	if len(bad) > 0 {
		return fmt.Errorf("verifying counts of %d groups: %s", len(c.groups), strings.Join(bad, "; "))
	}
	return nil
}
