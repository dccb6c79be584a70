package graphdb

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/sinks"
	"github.com/tkgraph/backfill/sinks/cypher"
)

// benchDims is the embedding size of the synthetic rows (a common embedding model size).
const benchDims = 1024

// synthetic builds groups × entities entities and groups × facts facts, with a random benchDims
// embedding each when embeddings is true. Nothing else (no episodes, mentions or communities).
func synthetic(groups, entities, facts int, embeddings bool) *sinks.MemSource {
	r := rand.New(rand.NewPCG(1, 2))
	vec := func() []float32 {
		if !embeddings {
			return nil
		}
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

// BenchmarkNeo4jLoad measures a fresh Bolt load into Neo4j against the ceiling, iteration by
// iteration: the ceiling (the faster of bestCeilings, see BenchmarkNeo4jCeiling) and the loader write the same
// rows, each into a new, empty database (freshDB, not timed), in alternating order. Entities, and
// facts between a few entities (part of the timed load, ≤ 4% of its rows), with and without 1024-d
// embeddings. The loader's time is a whole Load with its defaults: schema, writes, verification.
// Metrics: rows/s of the loader and of the ceiling, the loader's percentage of the ceiling; the
// same for the ceiling followed by Graphiti's schema and the vector indexes (what the loader
// leaves, all online: created after the ceiling's rows and awaited), which is what the ceiling
// leaves out; and vector-index-s, the seconds after Load returns until Neo4j reports every index
// online, and pct-of-ceiling-indexed, the loader's percentage of the ceiling counting that wait.
//
// Each case runs in every index mode (sub-benchmarks ending in /indexes=MODE, cypher.IndexMode):
// online creates the vector indexes before its first write, so vector-index-s is near 0;
// graphiti (the default) and background create them after the last write, and vector-index-s is
// the wait until Neo4j has populated every index Load did not await. The default mode also runs
// with the other session count of bestCeilings (/sessions=N, sink.sessions).
func BenchmarkNeo4jLoad(b *testing.B) {
	uri, drv := benchDriver(b)
	for _, tc := range benchCases() {
		for _, mode := range []cypher.IndexMode{cypher.IndexesOnline, cypher.IndexesGraphiti, cypher.IndexesBackground} {
			benchNeo4jLoad(b, uri, drv, tc.name+"/indexes="+string(mode), tc, mode, DefaultSessions)
		}
		other := 1
		if DefaultSessions == 1 {
			other = 2
		}
		benchNeo4jLoad(b, uri, drv, fmt.Sprintf("%s/indexes=%s/sessions=%d", tc.name, cypher.DefaultIndexMode, other), tc, cypher.DefaultIndexMode, other)
	}
}

// benchNeo4jLoad is one sub-benchmark of BenchmarkNeo4jLoad: a loader with the given index mode
// and session count.
func benchNeo4jLoad(b *testing.B, uri string, drv neo4j.DriverWithContext, name string, tc benchCase, mode cypher.IndexMode, sessions int) {
	b.Run(name, func(b *testing.B) {
		groups, err := tc.src.Groups(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		l, err := Open(b.Context(), Options{Dialect: cypher.Neo4j, URI: uri, VectorDims: benchDims, Indexes: mode,
			Sessions: sessions, Log: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close(b.Context())
		var loaded, ceil, schema, vectors time.Duration
		ceiling := func() {
			ceil += bestCeiling(b, drv, tc.src)
			// Graphiti's schema on the ceiling's graph, as the loader leaves it: every index
			// created, all but the vector indexes online.
			start := time.Now()
			if err := l.schema(b.Context(), "", cypher.DDL(cypher.Neo4j, benchDims)); err != nil {
				b.Fatal(err)
			}
			schema += time.Since(start)
		}
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				ceiling()
			}
			b.StopTimer()
			freshDB(b, drv)
			b.StartTimer()
			start := time.Now()
			if _, err := l.Load(b.Context(), tc.src, groups, nil); err != nil {
				b.Fatal(err)
			}
			loaded += time.Since(start)
			b.StopTimer()
			start = time.Now()
			run(b, drv, "CALL db.awaitIndexes(300)", nil)
			vectors += time.Since(start)
			if i%2 == 1 {
				ceiling()
			}
			b.StartTimer()
			i++
		}
		b.ReportMetric(float64(tc.rows), "rows")
		b.ReportMetric(float64(tc.rows*b.N)/loaded.Seconds(), "rows/s")
		b.ReportMetric(float64(tc.rows*b.N)/ceil.Seconds(), "ceiling-rows/s")
		b.ReportMetric(100*ceil.Seconds()/loaded.Seconds(), "pct-of-ceiling")
		b.ReportMetric(float64(tc.rows*b.N)/(ceil+schema).Seconds(), "ceiling-schema-rows/s")
		b.ReportMetric(100*(ceil+schema).Seconds()/loaded.Seconds(), "pct-of-ceiling-schema")
		b.ReportMetric(vectors.Seconds()/float64(b.N), "vector-index-s")
		b.ReportMetric(100*ceil.Seconds()/(loaded+vectors).Seconds(), "pct-of-ceiling-indexed")
		b.StopTimer()
		freshDB(b, drv)
	})
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
