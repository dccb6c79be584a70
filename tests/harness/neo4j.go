package harness

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Neo4jQuery runs a query on the server at uri (no authentication) and returns its records
// as maps.
func Neo4jQuery(ctx context.Context, uri, cypher string) ([]map[string]any, error) {
	return neo4jQueryParams(ctx, uri, cypher, nil)
}

// neo4jQueryParams is Neo4jQuery with parameters.
func neo4jQueryParams(ctx context.Context, uri, cypher string, params map[string]any) ([]map[string]any, error) {
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", uri, err)
	}
	defer drv.Close(context.WithoutCancel(ctx))
	res, err := neo4j.ExecuteQuery(ctx, drv, cypher, params, neo4j.EagerResultTransformer)
	if err != nil {
		return nil, fmt.Errorf("running %q: %w", cypher, err)
	}
	out := make([]map[string]any, len(res.Records))
	for i, r := range res.Records {
		out[i] = r.AsMap()
	}
	return out, nil
}

// ClearNeo4j deletes every node and relationship of the server's default database in one
// transaction (test graphs are small).
func ClearNeo4j(ctx context.Context, uri string) error {
	_, err := Neo4jQuery(ctx, uri, "MATCH (n) DETACH DELETE n")
	return err
}

// Neo4jSnapshot renders every node (labels, properties) and relationship (type, endpoint
// uuids, properties) of the server's default database as sorted lines, so two loads compare
// as strings. Property values are printed with their Go types.
func Neo4jSnapshot(ctx context.Context, uri string) ([]string, error) {
	var lines []string
	nodes, err := Neo4jQuery(ctx, uri, "MATCH (n) RETURN labels(n) AS l, properties(n) AS p")
	if err != nil {
		return nil, err
	}
	for _, r := range nodes {
		l, _ := r["l"].([]any)
		ls := make([]string, 0, len(l))
		for _, x := range l {
			ls = append(ls, fmt.Sprint(x))
		}
		slices.Sort(ls)
		p, _ := r["p"].(map[string]any)
		lines = append(lines, "node "+strings.Join(ls, ":")+props(p))
	}
	rels, err := Neo4jQuery(ctx, uri, "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.uuid AS a, b.uuid AS b, properties(r) AS p")
	if err != nil {
		return nil, err
	}
	for _, r := range rels {
		p, _ := r["p"].(map[string]any)
		lines = append(lines, fmt.Sprintf("rel %v %v->%v%s", r["t"], r["a"], r["b"], props(p)))
	}
	slices.Sort(lines)
	return lines, nil
}

// Graph is Neo4jSnapshot for a test: it fails t when the database cannot be read.
func Graph(t testing.TB, uri string) []string {
	t.Helper()
	lines, err := Neo4jSnapshot(t.Context(), uri)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// props renders a property map in key order with each value's Go type; a time also shows its
// zone, so a datetime stored in another zone differs.
func props(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := p[k]
		if tm, ok := v.(time.Time); ok {
			v = tm.Format(time.RFC3339Nano) + "@" + tm.Location().String()
		}
		fmt.Fprintf(&b, " %s=%T:%v", k, p[k], v)
	}
	return b.String()
}

// DiffLines describes how got differs from want (both sorted): counts and the first lines
// present in one only; "" when they are equal.
func DiffLines(want, got []string) string {
	if slices.Equal(want, got) {
		return ""
	}
	var onlyWant, onlyGot []string
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j >= len(got) || i < len(want) && want[i] < got[j]:
			onlyWant = append(onlyWant, want[i])
			i++
		case i >= len(want) || got[j] < want[i]:
			onlyGot = append(onlyGot, got[j])
			j++
		default:
			i++
			j++
		}
	}
	first := func(xs []string) string {
		if len(xs) > 3 {
			xs = xs[:3]
		}
		for i, x := range xs {
			if len(x) > 300 {
				xs[i] = x[:300] + "…"
			}
		}
		return strings.Join(xs, "\n    ")
	}
	return fmt.Sprintf("%d lines wanted, %d got; only wanted (%d):\n    %s\n  only got (%d):\n    %s",
		len(want), len(got), len(onlyWant), first(onlyWant), len(onlyGot), first(onlyGot))
}

// WaitNeo4jCount waits until p has started stage and count, a query returning one integer, run
// on the Neo4j server at uri, reaches want; it returns true then, and false when the stage
// finished or p ended first or ctx is done. It polls through one driver, so that a poll is one
// round trip rather than a new connection (on a loaded machine a slow poll can miss the point
// a test aims a fault at), and waits up to 10 ms for the log between polls.
func WaitNeo4jCount(ctx context.Context, p *Proc, uri, stage, count string, want int64) (bool, error) {
	if !p.WaitStage(ctx, stage) {
		return false, nil
	}
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		return false, fmt.Errorf("connecting to %s: %w", uri, err)
	}
	defer drv.Close(context.WithoutCancel(ctx))
	finished := `msg="stage finished" stage=` + stage
	for {
		res, err := neo4j.ExecuteQuery(ctx, drv, count, nil, neo4j.EagerResultTransformer)
		if err != nil {
			if ctx.Err() != nil {
				return false, nil
			}
			return false, fmt.Errorf("running %q: %w", count, err)
		}
		if len(res.Records) == 1 && len(res.Records[0].Values) == 1 {
			if n, _ := res.Records[0].Values[0].(int64); n >= want {
				return true, nil
			}
		}
		tick, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		_, done := p.WaitLine(tick, finished)
		ended := !done && tick.Err() == nil
		cancel()
		if done || ended || ctx.Err() != nil {
			return false, nil
		}
	}
}

// Neo4jHits counts the string and list-of-string properties of every node and relationship of
// the database that contain s.
func Neo4jHits(ctx context.Context, uri, s string) (int64, error) {
	var n int64
	for _, match := range []string{"MATCH (x)", "MATCH ()-[x]->()"} {
		q := match + ` UNWIND keys(x) AS k WITH x[k] AS v
			WITH CASE WHEN v IS :: STRING THEN [v] WHEN v IS :: LIST<STRING NOT NULL> THEN v ELSE [] END AS texts
			UNWIND texts AS text WITH text WHERE text CONTAINS $s RETURN count(*) AS n`
		recs, err := neo4jQueryParams(ctx, uri, q, map[string]any{"s": s})
		if err != nil {
			return 0, err
		}
		n += recs[0]["n"].(int64)
	}
	return n, nil
}
