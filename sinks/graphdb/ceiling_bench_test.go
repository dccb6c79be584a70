package graphdb

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// ceiling is one way the plain Neo4j Go driver writes the loader's rows: UNWIND … CREATE in
// transactions of batch rows, sessions groups at a time (one session each), embeddings set with
// db.create.set*VectorProperty (vecProc) or inside the property map.
type ceiling struct {
	batch    int
	sessions int
	vecProc  bool
}

func (c ceiling) String() string {
	emb := "map"
	if c.vecProc {
		emb = "procedure"
	}
	return fmt.Sprintf("batch=%d/sessions=%d/embedding=%s", c.batch, c.sessions, emb)
}

// bestCeilings are the fastest configurations of BenchmarkNeo4jCeiling on the development
// machine (2 cores; one session when other work loads it, two when it is quiet):
// BenchmarkNeo4jLoad compares the loader with the faster of them in each iteration.
var bestCeilings = []ceiling{{2000, 1, true}, {2000, 2, true}}

// ceilingSweep are the configurations BenchmarkNeo4jCeiling measures.
var ceilingSweep = []ceiling{
	{2000, 1, false}, {2000, 1, true}, {500, 1, true}, {5000, 1, true}, {2000, 2, true}, {1000, 4, true},
}

// bestCeiling runs every configuration of bestCeilings and returns the shortest time.
func bestCeiling(b *testing.B, drv neo4j.DriverWithContext, src *sinks.MemSource) time.Duration {
	var best time.Duration
	for _, c := range bestCeilings {
		if d := ceilingRun(b, drv, c, src); best == 0 || d < best {
			best = d
		}
	}
	return best
}

// benchCase is one data set of the Bolt benchmarks; rows counts what is timed (entities, or
// facts: their few hundred endpoint entities are written too).
type benchCase struct {
	name string
	src  *sinks.MemSource
	rows int
}

// benchCases are entities alone and facts between a few entities, with and without embeddings.
func benchCases() []benchCase {
	var out []benchCase
	for _, emb := range []bool{true, false} {
		n := 2500
		if !emb {
			n = 25000
		}
		ents, facts := synthetic(4, n, 0, emb), synthetic(4, 100, n, emb)
		out = append(out,
			benchCase{fmt.Sprintf("entities/embeddings=%v", emb), ents, len(ents.EntityList)},
			benchCase{fmt.Sprintf("facts/embeddings=%v", emb), facts, len(facts.FactList)})
	}
	return out
}

// BenchmarkNeo4jCeiling measures what the plain Neo4j Go driver reaches on this machine for the
// rows BenchmarkNeo4jLoad writes, for each configuration of ceilingSweep: UNWIND … CREATE into an
// empty database that has only the entity uuid index (the facts' endpoint lookups need it; not
// timed). No other index, no verification: the ceiling a loader is measured against.
func BenchmarkNeo4jCeiling(b *testing.B) {
	_, drv := benchDriver(b)
	for _, tc := range benchCases() {
		for _, c := range ceilingSweep {
			if !c.vecProc && c != ceilingSweep[0] || !c.vecProc && tc.src.EntityList[0].NameEmbedding == nil {
				continue
			}
			b.Run(tc.name+"/"+c.String(), func(b *testing.B) {
				var elapsed time.Duration
				for b.Loop() {
					elapsed += ceilingRun(b, drv, c, tc.src)
				}
				b.ReportMetric(float64(tc.rows*b.N)/elapsed.Seconds(), "rows/s")
				freshDB(b, drv)
			})
		}
	}
}

// benchDriver holds the test Neo4j for b and connects to it.
func benchDriver(b *testing.B) (string, neo4j.DriverWithContext) {
	uri := testenv.Neo4jExclusive(b)
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth(), func(c *neo4j.Config) { c.MaxConnectionPoolSize = 8 })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { drv.Close(context.Background()) })
	return uri, drv
}

// ceilingRun empties the database, creates the uuid index and returns how long c takes to write
// src (entities, then facts, per group).
func ceilingRun(b *testing.B, drv neo4j.DriverWithContext, c ceiling, src *sinks.MemSource) time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	freshDB(b, drv)
	run(b, drv, "CREATE INDEX entity_uuid IF NOT EXISTS FOR (n:Entity) ON (n.uuid)", nil)
	run(b, drv, "CALL db.awaitIndexes(300)", nil)
	groups := ceilingRows(src, c.vecProc)
	node := "UNWIND $rows AS row CREATE (n:Entity:Person) SET n = row.props"
	edge := "UNWIND $rows AS row MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target}) " +
		"CREATE (a)-[r:RELATES_TO]->(b) SET r = row.props"
	if c.vecProc {
		node += " WITH n, row WHERE row.embedding IS NOT NULL CALL db.create.setNodeVectorProperty(n, 'name_embedding', row.embedding)"
		edge += " WITH r, row WHERE row.embedding IS NOT NULL CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', row.embedding)"
	}
	b.StartTimer()
	start := time.Now()
	sem := make(chan struct{}, c.sessions)
	var wg sync.WaitGroup
	errs := make([]error, len(groups))
	for i, g := range groups {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if errs[i] = ceilingWrite(b.Context(), drv, node, g.ents, c.batch); errs[i] == nil {
				errs[i] = ceilingWrite(b.Context(), drv, edge, g.facts, c.batch)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	return elapsed
}

// ceilingGroup is one group's rows for the ceiling.
type ceilingGroup struct{ ents, facts []any }

// ceilingRows are the loader's rows (cypher.EntityRow, cypher.FactRow) per group in group order;
// without vecProc the embedding goes into the property map.
func ceilingRows(src *sinks.MemSource, vecProc bool) []ceilingGroup {
	var out []ceilingGroup
	at := map[string]int{}
	group := func(id string) *ceilingGroup {
		if _, ok := at[id]; !ok {
			at[id] = len(out)
			out = append(out, ceilingGroup{})
		}
		return &out[at[id]]
	}
	shape := func(row cypher.Row, prop string) cypher.Row {
		if v, ok := row[cypher.KeyEmbedding]; ok && !vecProc {
			row[cypher.KeyProps].(cypher.Row)[prop] = v
			delete(row, cypher.KeyEmbedding)
		}
		return row
	}
	for _, e := range src.EntityList {
		g := group(e.GroupID)
		g.ents = append(g.ents, shape(cypher.EntityRow(e), "name_embedding"))
	}
	for _, f := range src.FactList {
		g := group(f.GroupID)
		g.facts = append(g.facts, shape(cypher.FactRow(f), "fact_embedding"))
	}
	return out
}

// ceilingWrite writes rows with stmt in transactions of batch rows, in one session.
func ceilingWrite(ctx context.Context, drv neo4j.DriverWithContext, stmt string, rows []any, batch int) error {
	sess := drv.NewSession(ctx, neo4j.SessionConfig{})
	defer sess.Close(ctx)
	for start := 0; start < len(rows); start += batch {
		part := rows[start:min(start+batch, len(rows))]
		_, err := sess.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
			res, err := tx.Run(ctx, stmt, map[string]any{"rows": part})
			if err != nil {
				return nil, err
			}
			return res.Consume(ctx)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// freshDB empties the database and drops every index and constraint but the built-in token
// lookup indexes, so each measurement starts from what a new database holds.
func freshDB(b *testing.B, drv neo4j.DriverWithContext) {
	clearAll(b, drv)
	for _, q := range []struct{ list, drop string }{
		{"SHOW CONSTRAINTS YIELD name RETURN name", "DROP CONSTRAINT `%s` IF EXISTS"},
		{"SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name", "DROP INDEX `%s` IF EXISTS"},
	} {
		res, err := neo4j.ExecuteQuery(b.Context(), drv, q.list, nil, neo4j.EagerResultTransformer)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range res.Records {
			run(b, drv, fmt.Sprintf(q.drop, r.Values[0].(string)), nil)
		}
	}
}

// run runs one auto-commit statement.
func run(b *testing.B, drv neo4j.DriverWithContext, stmt string, params map[string]any) {
	sess := drv.NewSession(context.Background(), neo4j.SessionConfig{})
	defer sess.Close(context.Background())
	res, err := sess.Run(context.Background(), stmt, params)
	if err == nil {
		_, err = res.Consume(context.Background())
	}
	if err != nil {
		b.Fatal(err)
	}
}
