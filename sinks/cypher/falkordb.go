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
//
// Before the writes, not after as on Neo4j: FalkorDB builds an index over existing rows in the
// background ("UNDER CONSTRUCTION" in db.indexes) at about the cost of keeping it up to date
// (25,000 entities: 5.4-5.9 s written, then indexed and awaited; 4.5-5.5 s indexed while
// written; 1.5-2.4 s with the uuid index alone, on a loaded 2-core machine), and a load that
// waited for them after each group measured slower (README, Loading into FalkorDB).
//
// A multi-property CREATE INDEX fails as a whole when one of its properties is indexed already
// ("Attribute 'uuid' is already indexed"; checked on FalkorDB 4.16.3), so the range indexes are
// created one property at a time: the same indexes, and a graph where another writer created
// some of them still gets the rest.
var falkorRange = []index{
	{"", "Entity", false, []string{"uuid", "group_id", "name", "created_at"}},
	{"", "Episodic", false, []string{"uuid", "group_id", "created_at", "valid_at"}},
	{"", "Community", false, []string{"uuid"}},
	{"", "Saga", false, []string{"uuid", "group_id", "name"}},
	{"", "RELATES_TO", true, []string{"uuid", "group_id", "name", "created_at", "expired_at", "valid_at", "invalid_at"}},
	{"", "MENTIONS", true, []string{"uuid", "group_id"}},
	{"", "HAS_MEMBER", true, []string{"uuid"}},
	{"", "HAS_EPISODE", true, []string{"uuid", "group_id"}},
	{"", "NEXT_EPISODE", true, []string{"uuid", "group_id"}},
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
	var out []Statement
	for _, ix := range falkorRange {
		v, pattern := "n", "(n:"+ix.label+")"
		if ix.edge {
			v, pattern = "e", "()-[e:"+ix.label+"]-()"
		}
		for _, p := range ix.props {
			out = append(out, auto("CREATE INDEX FOR "+pattern+" ON ("+v+"."+p+")"))
		}
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
