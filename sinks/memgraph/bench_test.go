package memgraph

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/internal/testenv"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// benchDims is the embedding size of the synthetic rows (a common embedding model size).
const benchDims = 1024

// synthetic builds groups × entities entities and groups × facts facts, every entity and fact
// with a random benchDims embedding. Nothing else (no episodes, mentions or communities).
func synthetic(groups, entities, facts int) *sinks.MemSource {
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		v := make([]float32, benchDims)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	src := &sinks.MemSource{}
	for g := range groups {
		group := fmt.Sprintf("bench-%03d", g)
		ids := make([]string, entities)
		for i := range entities {
			name := fmt.Sprintf("entity %d", i)
			ids[i] = graph.EntityID(group, name)
			src.EntityList = append(src.EntityList, graph.Entity{UUID: ids[i], GroupID: group, Name: name,
				Summary: "A synthetic entity used to measure load throughput.", Labels: []string{"Person"},
				CreatedAt: at, NameEmbedding: vec()})
		}
		for i := range facts {
			a, b := ids[i%entities], ids[(i*7+1)%entities]
			text := fmt.Sprintf("entity %d knows entity %d (fact %d).", i%entities, (i*7+1)%entities, i)
			va := at.Add(time.Duration(i) * time.Minute)
			src.FactList = append(src.FactList, graph.Fact{UUID: graph.FactID(group, a, b, "KNOWS", text), GroupID: group,
				SourceUUID: a, TargetUUID: b, Name: "KNOWS", Fact: text, Episodes: []string{graph.EpisodeID(group, "e")},
				CreatedAt: va, ValidAt: &va, ReferenceTime: va, Embedding: vec()})
		}
	}
	return src
}

// BenchmarkNeo4jLoad measures Bolt load throughput into a new, empty Neo4j database (a fresh
// load, schema included): entities with embeddings, and facts with embeddings (between a few
// entities, which are part of the timed load but ≤ 4% of its rows). Each iteration empties the
// database and drops its indexes first (not timed).
func BenchmarkNeo4jLoad(b *testing.B) {
	uri := testenv.Neo4jExclusive(b)
	drv, err := neo4j.NewDriverWithContext(uri, neo4j.NoAuth())
	if err != nil {
		b.Fatal(err)
	}
	defer drv.Close(b.Context())
	cases := []struct {
		name  string
		src   *sinks.MemSource
		rows  func(*sinks.MemSource) int
		batch int
	}{
		{"entities", synthetic(4, 2500, 0), func(s *sinks.MemSource) int { return len(s.EntityList) }, DefaultBatchSize},
		{"facts", synthetic(4, 100, 2500), func(s *sinks.MemSource) int { return len(s.FactList) }, DefaultBatchSize},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			groups, err := tc.src.Groups(b.Context())
			if err != nil {
				b.Fatal(err)
			}
			l, err := Open(b.Context(), Options{Dialect: cypher.Neo4j, URI: uri, BatchSize: tc.batch, VectorDims: benchVecDims})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close(b.Context())
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				freshDB(b, drv)
				b.StartTimer()
				start := time.Now()
				if _, err := l.Load(b.Context(), tc.src, groups, nil); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
			}
			b.ReportMetric(float64(tc.rows(tc.src)*b.N)/elapsed.Seconds(), "rows/s")
		})
	}
}

// clearAll empties the database in auto-commit batches (large graphs do not fit one transaction).
func clearAll(b *testing.B, drv neo4j.DriverWithContext) {
	sess := drv.NewSession(b.Context(), neo4j.SessionConfig{})
	defer sess.Close(b.Context())
	res, err := sess.Run(b.Context(), "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS", nil)
	if err == nil {
		_, err = res.Consume(b.Context())
	}
	if err != nil {
		b.Fatal(err)
	}
}

var benchVecDims = benchDims
