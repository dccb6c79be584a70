package cypherl

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks/cypher"
	"github.com/tkgraph/backfill/sinks/graphdb"
	"github.com/tkgraph/backfill/sinks/sinkstest"
)

// TestScriptMatchesBoltLoad runs the neo4j-dialect script statement by statement (one per line,
// as cypher-shell or mgconsole read it) against the real Neo4j server, and requires the same
// graph as the Bolt loader writes from the same source: every label, endpoint and property,
// times compared as instants in UTC.
func TestScriptMatchesBoltLoad(t *testing.T) {
	uri := testenv.Neo4jExclusive(t)
	ctx := t.Context()
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	defer drv.Close(context.Background())
	exec := func(cypher string) {
		t.Helper()
		sess := drv.NewSession(ctx, neo4j.SessionConfig{})
		defer sess.Close(ctx)
		res, err := sess.Run(ctx, cypher, nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			t.Fatalf("%.120s: %v", cypher, err)
		}
	}
	exec("MATCH (n) DETACH DELETE n")

	var script bytes.Buffer
	if err := ExportWith(ctx, sinkstest.Sample(), &script, Options{Dialect: cypher.Neo4j, BatchSize: 2}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&script)
	sc.Buffer(nil, 1<<24)
	lines := 0
	for sc.Scan() {
		exec(strings.TrimSuffix(sc.Text(), ";"))
		lines++
	}
	fromScript := graphText(t, drv)

	exec("MATCH (n) DETACH DELETE n")
	src := sinkstest.Sample()
	l, err := graphdb.Open(ctx, graphdb.Options{Dialect: cypher.Neo4j, URI: uri, VectorDims: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close(context.Background())
	groups, err := src.Groups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Load(ctx, src, groups, nil); err != nil {
		t.Fatal(err)
	}
	fromBolt := graphText(t, drv)
	if fromScript != fromBolt {
		t.Errorf("script (%d statements) and Bolt load differ:\n%s\n---\n%s", lines, fromScript, fromBolt)
	}
	if strings.Count(fromBolt, "\n") < 14 {
		t.Errorf("graph too small:\n%s", fromBolt)
	}
}

// graphText renders the database as sorted lines; times as UTC instants, floats as float32 text
// (embeddings are float32 values), lists element by element.
func graphText(t *testing.T, drv neo4j.DriverWithContext) string {
	t.Helper()
	var out []string
	for _, q := range []string{
		"MATCH (n) RETURN 'node' AS k, labels(n) AS l, '' AS a, '' AS b, properties(n) AS p",
		"MATCH (x)-[r]->(y) RETURN 'rel' AS k, [type(r)] AS l, x.uuid AS a, y.uuid AS b, properties(r) AS p",
	} {
		res, err := neo4j.ExecuteQuery(t.Context(), drv, q, nil, neo4j.EagerResultTransformer)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			m := r.AsMap()
			p := m["p"].(map[string]any)
			keys := make([]string, 0, len(p))
			for k := range p {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var b strings.Builder
			fmt.Fprintf(&b, "%s %v %v %v->%v", m["k"], p["uuid"], m["l"], m["a"], m["b"])
			for _, k := range keys {
				fmt.Fprintf(&b, " %s=%s", k, value(p[k]))
			}
			out = append(out, b.String())
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

func value(v any) string {
	switch x := v.(type) {
	case time.Time:
		return "time:" + x.UTC().Format(time.RFC3339Nano)
	case float64:
		return fmt.Sprintf("float:%v", float32(x))
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = value(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return fmt.Sprintf("%T:%v", v, v)
}
