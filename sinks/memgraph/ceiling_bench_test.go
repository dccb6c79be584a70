package memgraph

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// ceilingBatch is the rows per transaction of the ceiling: large, as a hand-written bulk import
// would use.
const ceilingBatch = 2000

// BenchmarkNeo4jCeiling measures what the plain Neo4j Go driver reaches on this machine for the
// rows BenchmarkNeo4jLoad writes: UNWIND … CREATE in batches of ceilingBatch rows in one session,
// into an empty database that has only the uuid range indexes (the facts' endpoint lookups need
// them), with and without the embeddings. It is the ceiling the loader is measured against.
func BenchmarkNeo4jCeiling(b *testing.B) {
	uri := testenv.Neo4jExclusive(b)
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		b.Fatal(err)
	}
	defer drv.Close(b.Context())
	for _, embeddings := range []bool{true, false} {
		for _, tc := range []struct {
			name string
			src  *sinks.MemSource
		}{
			{"entities", synthetic(4, 2500, 0)},
			{"facts", synthetic(4, 100, 2500)},
		} {
			b.Run(fmt.Sprintf("%s/embeddings=%v", tc.name, embeddings), func(b *testing.B) {
				ents, facts := ceilingRows(tc.src, embeddings)
				timed := len(ents)
				if len(facts) > 0 {
					timed = len(facts)
				}
				var elapsed time.Duration
				for b.Loop() {
					b.StopTimer()
					freshDB(b, drv)
					run(b, drv, "CREATE INDEX ceiling_entity_uuid IF NOT EXISTS FOR (n:Entity) ON (n.uuid)", nil)
					run(b, drv, "CALL db.awaitIndexes(300)", nil)
					b.StartTimer()
					start := time.Now()
					ceilingWrite(b, drv, "UNWIND $rows AS row CREATE (n:Entity:Person) SET n = row", ents)
					ceilingWrite(b, drv, "UNWIND $rows AS row MATCH (a:Entity {uuid: row.source}) MATCH (b:Entity {uuid: row.target}) "+
						"CREATE (a)-[r:RELATES_TO]->(b) SET r = row.props", facts)
					elapsed += time.Since(start)
				}
				b.ReportMetric(float64(timed*b.N)/elapsed.Seconds(), "rows/s")
				b.StopTimer()
				freshDB(b, drv)
			})
		}
	}
}

// ceilingRows are the property maps of the loader's rows (cypher.EntityRow, cypher.FactRow),
// without the embeddings when embeddings is false.
func ceilingRows(src *sinks.MemSource, embeddings bool) (ents, facts []any) {
	for _, e := range src.EntityList {
		if !embeddings {
			e.NameEmbedding = nil
		}
		ents = append(ents, cypher.EntityRow(e)[cypher.KeyProps])
	}
	for _, f := range src.FactList {
		if !embeddings {
			f.Embedding = nil
		}
		facts = append(facts, cypher.FactRow(f))
	}
	return ents, facts
}

// ceilingWrite writes rows with stmt in transactions of ceilingBatch rows.
func ceilingWrite(b *testing.B, drv neo4j.DriverWithContext, stmt string, rows []any) {
	sess := drv.NewSession(b.Context(), neo4j.SessionConfig{})
	defer sess.Close(b.Context())
	for start := 0; start < len(rows); start += ceilingBatch {
		batch := rows[start:min(start+ceilingBatch, len(rows))]
		_, err := sess.ExecuteWrite(b.Context(), func(tx neo4j.ManagedTransaction) (any, error) {
			res, err := tx.Run(b.Context(), stmt, map[string]any{"rows": batch})
			if err != nil {
				return nil, err
			}
			return res.Consume(b.Context())
		})
		if err != nil {
			b.Fatal(err)
		}
	}
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
