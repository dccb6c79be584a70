package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Names of the graph database load benchmarks in the metrics.
const (
	boltLoadBench        = "BenchmarkNeo4jLoad/"
	boltCeilingBench     = "BenchmarkNeo4jCeiling/"
	falkordbLoadBench    = "BenchmarkFalkorDBLoad/"
	falkordbCeilingBench = "BenchmarkFalkorDBCeiling/"
)

// boltTables renders the Bolt load against the ceiling (load) and the ceiling's configurations
// (ceiling); either may be nil. A run without metrics falls back to goBench.
func boltTables(w io.Writer, load, ceiling *GoBench) {
	if load == nil && ceiling == nil {
		return
	}
	if load == nil || len(load.Metrics) == 0 {
		goBench(w, "Bolt load into Neo4j (sinks/graphdb BenchmarkNeo4jLoad)", load)
	} else {
		fprintf(w, "## Bolt load into Neo4j against the plain driver (sinks/graphdb)\n\n`%s`\n\n", load.Command)
		fprintf(w, "A fresh load into an empty database, schema and verification included. Ceiling: the plain Go\n"+
			"driver writing the same rows with `UNWIND … CREATE` (2,000 rows per transaction, embeddings set\n"+
			"with `db.create.set*VectorProperty`, the faster of 1 and 2 sessions in each iteration) into a\n"+
			"database with only the entity uuid index. \"+ schema\": the ceiling followed by the indexes the\n"+
			"loader leaves, all online (Graphiti's range and full-text indexes, the vector indexes). The loader\n"+
			"runs in each index mode (`sink.indexes`): online creates the vector indexes before its first write\n"+
			"(Neo4j maintains them as rows are written) and returns with every index online; graphiti (the\n"+
			"default) returns with Graphiti's range and full-text indexes online and creates the vector indexes\n"+
			"after them; background awaits only the lookup indexes. The loader writes with its default session\n"+
			"count (`sink.sessions`, 2; 4 groups); the default mode runs once more with the other count\n"+
			"(`/sessions=1`). The last column is how long after Load\n"+
			"returns Neo4j still populated indexes, and the one before it the loader's share of the ceiling\n"+
			"counting that wait.\n\n")
		fprintf(w, "| rows | ceiling rows/s | loader rows/s | %% of ceiling | ceiling + schema rows/s | %% of ceiling + schema | %% of ceiling, vector indexes online | vector indexes online after (s) |\n")
		fprintf(w, "|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, name := range sortedKeys(load.Metrics) {
			m := load.Metrics[name]
			fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", boltCase(strings.TrimPrefix(name, boltLoadBench), m["rows"]),
				num(m["ceiling-rows/s"]), num(m["rows/s"]), num(m["pct-of-ceiling"]), num(m["ceiling-schema-rows/s"]),
				num(m["pct-of-ceiling-schema"]), num(m["pct-of-ceiling-indexed"]), num(m["vector-index-s"]))
		}
		fprintf(w, "\n")
	}
	ceilingTable(w, "Bolt ceiling configurations (sinks/graphdb BenchmarkNeo4jCeiling)", boltCeilingBench, ceiling)
}

// ceilingTable renders a ceiling benchmark's configurations (rows/s per case); a run without
// metrics falls back to goBench with title.
func ceilingTable(w io.Writer, title, prefix string, ceiling *GoBench) {
	if ceiling == nil || len(ceiling.Metrics) == 0 {
		goBench(w, title, ceiling)
		return
	}
	fprintf(w, "### Ceiling configurations (rows/s)\n\n`%s`\n\n", ceiling.Command)
	var cases, configs []string
	rate := map[[2]string]float64{}
	for name, m := range ceiling.Metrics {
		parts := strings.SplitN(strings.TrimPrefix(name, prefix), "/", 3)
		if len(parts) != 3 {
			continue
		}
		c, cfg := parts[0]+"/"+parts[1], parts[2]
		if !slices.Contains(cases, c) {
			cases = append(cases, c)
		}
		if !slices.Contains(configs, cfg) {
			configs = append(configs, cfg)
		}
		rate[[2]string{c, cfg}] = m["rows/s"]
	}
	slices.Sort(cases)
	slices.Sort(configs)
	fprintf(w, "| configuration | %s |\n|---|%s\n", strings.Join(cases, " | "), strings.Repeat("---:|", len(cases)))
	for _, cfg := range configs {
		cells := make([]string, len(cases))
		for i, c := range cases {
			cells[i] = "–"
			if v, ok := rate[[2]string{c, cfg}]; ok {
				cells[i] = num(v)
			}
		}
		fprintf(w, "| %s | %s |\n", cfg, strings.Join(cells, " | "))
	}
	fprintf(w, "\n")
}

// falkordbTables renders the FalkorDB load against a plain client (load) and the client's
// configurations (ceiling); either may be nil.
func falkordbTables(w io.Writer, load, ceiling *GoBench) {
	if load == nil && ceiling == nil {
		return
	}
	if load == nil || len(load.Metrics) == 0 {
		goBench(w, "Load into FalkorDB (sinks/graphdb BenchmarkFalkorDBLoad)", load)
	} else {
		fprintf(w, "## Load into FalkorDB against a plain client (sinks/graphdb)\n\n`%s`\n\n", load.Command)
		fprintf(w, "A fresh load into an emptied server, Graphiti's indexes (created in each group's graph before\n"+
			"its first write) and verification included. Ceiling: a plain go-redis client sending the same rows\n"+
			"with `UNWIND … CREATE … SET … = vecf32(…)` as a `CYPHER rows=[…]` literal prefix (the fastest of\n"+
			"200, 500 and 2,000 rows per GRAPH.QUERY, 2 groups at once, in each iteration), each group into its own graph\n"+
			"holding only the entity uuid index; each session renders a query, then sends it. \"Send\n"+
			"ceiling\": the same with every query rendered before the clock starts (only sending and\n"+
			"FalkorDB's work timed). \"+ schema\": the ceiling followed by Graphiti's indexes, created in its\n"+
			"graphs and awaited (the loader creates them before its writes and maintains them). The loader runs\n"+
			"with its default session count (`sink.sessions`, 2; 4 groups) and once with the other.\n\n")
		fprintf(w, "| rows | ceiling rows/s | ceiling + schema rows/s | send ceiling rows/s | loader rows/s | %% of ceiling | %% of ceiling + schema | %% of send ceiling |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, name := range sortedKeys(load.Metrics) {
			m := load.Metrics[name]
			fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", boltCase(strings.TrimPrefix(name, falkordbLoadBench), m["rows"]),
				num(m["ceiling-rows/s"]), num(m["ceiling-schema-rows/s"]), num(m["send-ceiling-rows/s"]), num(m["rows/s"]),
				num(m["pct-of-ceiling"]), num(m["pct-of-ceiling-schema"]), num(m["pct-of-send-ceiling"]))
		}
		fprintf(w, "\n")
	}
	ceilingTable(w, "FalkorDB ceiling configurations (sinks/graphdb BenchmarkFalkorDBCeiling)", falkordbCeilingBench, ceiling)
}

// boltCase names a load benchmark case: "entities/embeddings=true" with its rows.
func boltCase(c string, rows float64) string {
	if rows > 0 {
		return fmt.Sprintf("%s (%.0f)", c, rows)
	}
	return c
}
