package cypher

import "strings"

// FalkorDB's schema is graphiti-core 0.31.2's (graph_queries.get_range_indices and
// get_fulltext_indices for FALKORDB, run by FalkorDriver.build_indices_and_constraints), created in
// every group's graph before its first write, range indexes first as Graphiti orders them. FalkorDB
// indexes carry no names: a multi-property CREATE INDEX indexes each property, and the full-text
// index of a label is the one db.idx.fulltext.queryNodes / queryRelationships search by label.
// Graphiti's search on FalkorDB computes vec.cosineDistance over the group's rows and uses no
// vector index, so none is created. Graphiti also indexes its Saga, HAS_EPISODE and
// NEXT_EPISODE elements, which backfill does not write; they are created all the same, so a
// graph backfill loaded already has every index Graphiti's own startup would create.
var falkorRange = []string{
	"CREATE INDEX FOR (n:Entity) ON (n.uuid, n.group_id, n.name, n.created_at)",
	"CREATE INDEX FOR (n:Episodic) ON (n.uuid, n.group_id, n.created_at, n.valid_at)",
	"CREATE INDEX FOR (n:Community) ON (n.uuid)",
	"CREATE INDEX FOR (n:Saga) ON (n.uuid, n.group_id, n.name)",
	"CREATE INDEX FOR ()-[e:RELATES_TO]-() ON (e.uuid, e.group_id, e.name, e.created_at, e.expired_at, e.valid_at, e.invalid_at)",
	"CREATE INDEX FOR ()-[e:MENTIONS]-() ON (e.uuid, e.group_id)",
	"CREATE INDEX FOR ()-[e:HAS_MEMBER]-() ON (e.uuid)",
	"CREATE INDEX FOR ()-[e:HAS_EPISODE]-() ON (e.uuid, e.group_id)",
	"CREATE INDEX FOR ()-[e:NEXT_EPISODE]-() ON (e.uuid, e.group_id)",
}

// falkorStopwords is graphiti_core.driver.falkordb.STOPWORDS, written as Python's str() of the
// list, as Graphiti interpolates it into its full-text index statements.
const falkorStopwords = "['a', 'is', 'the', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', " +
	"'into', 'it', 'no', 'not', 'of', 'on', 'or', 'such', 'that', 'their', 'then', 'there', 'these', 'they', " +
	"'this', 'to', 'was', 'will', 'with']"

var falkorText = []string{
	"CREATE FULLTEXT INDEX FOR (n:Episodic) ON (n.content, n.source, n.source_description, n.group_id) OPTIONS {stopwords: " + falkorStopwords + "}",
	"CREATE FULLTEXT INDEX FOR (n:Entity) ON (n.name, n.summary, n.group_id) OPTIONS {stopwords: " + falkorStopwords + "}",
	"CREATE FULLTEXT INDEX FOR (n:Community) ON (n.name, n.group_id) OPTIONS {stopwords: " + falkorStopwords + "}",
	"CREATE FULLTEXT INDEX FOR ()-[e:RELATES_TO]-() ON (e.name, e.fact, e.group_id)",
}

// falkorSchema is every schema statement of a FalkorDB graph (PreLoad).
func falkorSchema() []Statement {
	out := make([]Statement, 0, len(falkorRange)+len(falkorText))
	for _, s := range falkorRange {
		out = append(out, auto(s))
	}
	for _, s := range falkorText {
		out = append(out, auto(s))
	}
	return out
}

// SchemaExists reports whether err, returned by a schema statement of dialect d, says that the
// element exists already, so that running the statement again is a no-op: Memgraph has no IF NOT
// EXISTS for text and vector indexes and constraints ("already exists"), FalkorDB none for any
// index ("Attribute 'uuid' is already indexed", which graphiti-core's FalkorDriver ignores too).
func SchemaExists(d Dialect, err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	switch d {
	case Memgraph:
		return strings.Contains(msg, "already exists")
	case FalkorDB:
		return strings.Contains(msg, "already indexed")
	}
	return false
}

// noGraph is what FalkorDB answers a read of a graph that does not exist.
const noGraph = "invalid graph operation on empty key"

// MissingGraph reports whether err is FalkorDB's answer to a read-only query (GRAPH.RO_QUERY)
// of a graph that does not exist: the graph holds nothing.
func MissingGraph(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), noGraph)
}
