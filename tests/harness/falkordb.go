package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// FalkorDB is a client of the FalkorDB server at a redis:// URI, for tests.
type FalkorDB struct{ c *redis.Client }

// DialFalkorDB connects to uri; Close releases it.
func DialFalkorDB(uri string) (*FalkorDB, error) {
	o, err := redis.ParseURL(uri)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", uri, err)
	}
	o.Protocol, o.DisableIdentity = 2, true
	return &FalkorDB{c: redis.NewClient(o)}, nil
}

// Close closes the connections.
func (f *FalkorDB) Close() error { return f.c.Close() }

// Graphs lists the graphs of the server, sorted.
func (f *FalkorDB) Graphs(ctx context.Context) ([]string, error) {
	res, err := f.c.Do(ctx, "GRAPH.LIST").StringSlice()
	if err != nil {
		return nil, fmt.Errorf("listing graphs: %w", err)
	}
	slices.Sort(res)
	return res, nil
}

// Clear deletes every graph of the server.
func (f *FalkorDB) Clear(ctx context.Context) error {
	gs, err := f.Graphs(ctx)
	if err != nil {
		return err
	}
	for _, g := range gs {
		if err := f.c.Do(ctx, "GRAPH.DELETE", g).Err(); err != nil {
			return fmt.Errorf("deleting graph %s: %w", g, err)
		}
	}
	return nil
}

// ClearFalkorDB deletes every graph of the FalkorDB server at uri.
func ClearFalkorDB(ctx context.Context, uri string) error {
	db, err := DialFalkorDB(uri)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Clear(ctx)
}

// Exec runs a write query on graph (creating the graph if it does not exist).
func (f *FalkorDB) Exec(ctx context.Context, graph, cypher string) error {
	if err := f.c.Do(ctx, "GRAPH.QUERY", graph, cypher).Err(); err != nil {
		return fmt.Errorf("running %q on graph %s: %w", cypher, graph, err)
	}
	return nil
}

// Query runs a read-only query on graph and returns its rows in FalkorDB's verbose reply format
// (strings and integers as such; floats, lists, maps and vectors as FalkorDB's text of them).
func (f *FalkorDB) Query(ctx context.Context, graph, cypher string) ([][]any, error) {
	res, err := f.c.Do(ctx, "GRAPH.RO_QUERY", graph, cypher).Slice()
	if err != nil {
		return nil, fmt.Errorf("running %q on graph %s: %w", cypher, graph, err)
	}
	if len(res) < 3 {
		return nil, nil
	}
	raw, _ := res[1].([]any)
	out := make([][]any, len(raw))
	for i, r := range raw {
		out[i], _ = r.([]any)
	}
	return out, nil
}

// Int runs a query returning one integer.
func (f *FalkorDB) Int(ctx context.Context, graph, cypher string) (int64, error) {
	rows, err := f.Query(ctx, graph, cypher)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 {
		return 0, fmt.Errorf("%q on graph %s returned %v, not one value", cypher, graph, rows)
	}
	n, ok := rows[0][0].(int64)
	if !ok {
		return 0, fmt.Errorf("%q on graph %s returned %T, not an integer", cypher, graph, rows[0][0])
	}
	return n, nil
}

// Snapshot renders every node (graph, labels, properties) and relationship (graph, type,
// endpoint uuids, properties) of every graph of the server as sorted lines, so two loads compare
// as strings. Properties are printed in key order with FalkorDB's text of each value.
func (f *FalkorDB) Snapshot(ctx context.Context) ([]string, error) {
	gs, err := f.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, g := range gs {
		nodes, err := f.Query(ctx, g, "MATCH (n) UNWIND keys(n) AS k RETURN id(n), labels(n), k, n[k]")
		if err != nil {
			return nil, err
		}
		for _, n := range group(nodes) {
			lines = append(lines, fmt.Sprintf("%s node %v%s", g, n.head[1], n.props))
		}
		rels, err := f.Query(ctx, g, "MATCH (a)-[r]->(b) UNWIND keys(r) AS k RETURN id(r), type(r) + ' ' + a.uuid + '->' + b.uuid, k, r[k]")
		if err != nil {
			return nil, err
		}
		for _, r := range group(rels) {
			lines = append(lines, fmt.Sprintf("%s rel %v%s", g, r.head[1], r.props))
		}
	}
	slices.Sort(lines)
	return lines, nil
}

// element is one node or relationship of a Snapshot: its id and description, its properties.
type element struct {
	head  []any
	props string
}

// group folds rows of (id, description, key, value) into one element per id, keys sorted.
func group(rows [][]any) []element {
	byID := map[string][][]any{}
	var ids []string
	for _, r := range rows {
		id := fmt.Sprint(r[0])
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], r)
	}
	out := make([]element, 0, len(ids))
	for _, id := range ids {
		rs := byID[id]
		slices.SortFunc(rs, func(a, b []any) int { return strings.Compare(fmt.Sprint(a[2]), fmt.Sprint(b[2])) })
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, " %v=%T:%v", r[2], r[3], r[3])
		}
		out = append(out, element{head: rs[0][:2], props: b.String()})
	}
	return out
}
