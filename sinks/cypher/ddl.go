package cypher

import (
	"fmt"
	"strings"
)

// DefaultVectorCapacity is the initial capacity of a Memgraph vector index; Memgraph grows a full
// index by its resize coefficient (2 by default).
const DefaultVectorCapacity = 100_000

// SchemaOptions configures the vector indexes of PreLoad.
type SchemaOptions struct {
	VectorDims     int // embedding dimensions; 0 or less creates no vector index
	VectorCapacity int // Memgraph initial vector index capacity; 0 means DefaultVectorCapacity
}

// index is one index of the Graphiti schema.
type index struct {
	name  string   // Graphiti's name (Neo4j, Memgraph text and vector indexes)
	label string   // node label or relationship type
	edge  bool     // label is a relationship type
	props []string // one for range and vector indexes, several for text indexes
}

// rangeIndexes are Graphiti's range indexes, in Graphiti's order, plus has_member_group_id.
var rangeIndexes = []index{
	{"entity_uuid", "Entity", false, []string{"uuid"}},
	{"episode_uuid", "Episodic", false, []string{"uuid"}},
	{"community_uuid", "Community", false, []string{"uuid"}},
	{"relation_uuid", "RELATES_TO", true, []string{"uuid"}},
	{"mention_uuid", "MENTIONS", true, []string{"uuid"}},
	{"has_member_uuid", "HAS_MEMBER", true, []string{"uuid"}},
	{"entity_group_id", "Entity", false, []string{"group_id"}},
	{"episode_group_id", "Episodic", false, []string{"group_id"}},
	{"community_group_id", "Community", false, []string{"group_id"}},
	{"relation_group_id", "RELATES_TO", true, []string{"group_id"}},
	{"mention_group_id", "MENTIONS", true, []string{"group_id"}},
	{"has_member_group_id", "HAS_MEMBER", true, []string{"group_id"}},
	{"name_entity_index", "Entity", false, []string{"name"}},
	{"created_at_entity_index", "Entity", false, []string{"created_at"}},
	{"created_at_episodic_index", "Episodic", false, []string{"created_at"}},
	{"valid_at_episodic_index", "Episodic", false, []string{"valid_at"}},
	{"name_edge_index", "RELATES_TO", true, []string{"name"}},
	{"created_at_edge_index", "RELATES_TO", true, []string{"created_at"}},
	{"expired_at_edge_index", "RELATES_TO", true, []string{"expired_at"}},
	{"valid_at_edge_index", "RELATES_TO", true, []string{"valid_at"}},
	{"invalid_at_edge_index", "RELATES_TO", true, []string{"invalid_at"}},
}

// textIndexes are Graphiti's full-text indexes.
var textIndexes = []index{
	{"episode_content", "Episodic", false, []string{"content", "source", "source_description", "group_id"}},
	{"node_name_and_summary", "Entity", false, []string{"name", "summary", "group_id"}},
	{"community_name", "Community", false, []string{"name", "group_id"}},
	{"edge_name_and_fact", "RELATES_TO", true, []string{"name", "fact", "group_id"}},
}

// vectorIndexes are the embedding indexes (cosine).
var vectorIndexes = []index{
	{"name_embedding_entity_index", "Entity", false, []string{"name_embedding"}},
	{"fact_embedding_edge_index", "RELATES_TO", true, []string{"fact_embedding"}},
	{"name_embedding_community_index", "Community", false, []string{"name_embedding"}},
}

// Index kinds of IndexNames.
const (
	RangeIndex  = "range"
	TextIndex   = "text"
	VectorIndex = "vector"
)

// IndexNames lists the names of the schema's indexes of one kind (RangeIndex, TextIndex,
// VectorIndex), in the order DDL creates them.
func IndexNames(kind string) []string {
	var ixs []index
	switch kind {
	case RangeIndex:
		ixs = rangeIndexes
	case TextIndex:
		ixs = textIndexes
	case VectorIndex:
		ixs = vectorIndexes
	}
	out := make([]string, len(ixs))
	for i, ix := range ixs {
		out[i] = ix.name
	}
	return out
}

// uniqueLabels get a uuid uniqueness constraint on Memgraph. Neo4j gets none: a constraint there
// would need its own index and clash with Graphiti's range index on the same property.
var uniqueLabels = []string{"Entity", "Episodic", "Community"}

// neo4jAwait waits (up to 300 s) until every index is online.
const neo4jAwait = "CALL db.awaitIndexes(300)"

// DDL returns every schema statement of dialect d in the order of a plain (non-bulk) load:
// PreLoad then PostLoad. vectorDims <= 0 creates no vector index.
func DDL(d Dialect, vectorDims int) []Statement {
	pre := PreLoad(d, SchemaOptions{VectorDims: vectorDims})
	if pre == nil {
		return nil
	}
	return append(pre, PostLoad(d)...)
}

// PreLoad returns the statements to run before any node is written: range and vector indexes.
func PreLoad(d Dialect, o SchemaOptions) []Statement {
	capacity := o.VectorCapacity
	if capacity <= 0 {
		capacity = DefaultVectorCapacity
	}
	var out []Statement
	switch d {
	case Memgraph:
		for _, ix := range rangeIndexes {
			out = append(out, auto(fmt.Sprintf("CREATE %sINDEX ON :%s(%s)", edgeWord(ix), ix.label, ix.props[0])))
		}
		if o.VectorDims > 0 {
			for _, ix := range vectorIndexes {
				out = append(out, auto(fmt.Sprintf(
					`CREATE VECTOR %sINDEX %s ON :%s(%s) WITH CONFIG {"dimension": %d, "capacity": %d, "metric": "cos"}`,
					edgeWord(ix), ix.name, ix.label, ix.props[0], o.VectorDims, capacity)))
			}
		}
	case Neo4j:
		for _, ix := range rangeIndexes {
			out = append(out, tx(fmt.Sprintf("CREATE INDEX %s IF NOT EXISTS FOR %s ON (%s)",
				ix.name, neo4jPattern(ix), neo4jProps(ix))))
		}
		if o.VectorDims > 0 {
			for _, ix := range vectorIndexes {
				out = append(out, tx(fmt.Sprintf("CREATE VECTOR INDEX %s IF NOT EXISTS FOR %s ON (%s) "+
					"OPTIONS {indexConfig: {`vector.dimensions`: %d, `vector.similarity_function`: 'cosine'}}",
					ix.name, neo4jPattern(ix), neo4jProps(ix), o.VectorDims)))
			}
		}
		out = append(out, tx(neo4jAwait))
	default:
		return nil
	}
	return out
}

// PostLoad returns the statements to run after every edge is written: full-text indexes and, on
// Memgraph, uuid uniqueness constraints.
func PostLoad(d Dialect) []Statement {
	var out []Statement
	switch d {
	case Memgraph:
		for _, ix := range textIndexes {
			out = append(out, auto(fmt.Sprintf("CREATE TEXT %sINDEX %s ON :%s(%s)",
				edgeWord(ix), ix.name, ix.label, strings.Join(ix.props, ", "))))
		}
		for _, l := range uniqueLabels {
			out = append(out, auto(fmt.Sprintf("CREATE CONSTRAINT ON (n:%s) ASSERT n.uuid IS UNIQUE", l)))
		}
	case Neo4j:
		for _, ix := range textIndexes {
			out = append(out, tx(fmt.Sprintf("CREATE FULLTEXT INDEX %s IF NOT EXISTS FOR %s ON EACH [%s]",
				ix.name, neo4jPattern(ix), neo4jProps(ix))))
		}
		out = append(out, tx(neo4jAwait))
	default:
		return nil
	}
	return out
}

// BulkBegin returns the statements that switch to bulk-load mode after PreLoad: Memgraph's
// IN_MEMORY_ANALYTICAL storage mode (no WAL, no rollback). Empty for Neo4j.
func BulkBegin(d Dialect) []Statement {
	if d != Memgraph {
		return nil
	}
	return []Statement{auto("STORAGE MODE IN_MEMORY_ANALYTICAL")}
}

// BulkEnd returns the statements that end bulk-load mode after the last edge: a snapshot (the only
// durability analytical mode has), then back to IN_MEMORY_TRANSACTIONAL. Empty for Neo4j.
func BulkEnd(d Dialect) []Statement {
	if d != Memgraph {
		return nil
	}
	return []Statement{auto("CREATE SNAPSHOT"), auto("STORAGE MODE IN_MEMORY_TRANSACTIONAL")}
}

func auto(c string) Statement { return Statement{Cypher: c, AutoCommit: true} }
func tx(c string) Statement   { return Statement{Cypher: c} }

// edgeWord is "EDGE " for a Memgraph index on a relationship type.
func edgeWord(ix index) string {
	if ix.edge {
		return "EDGE "
	}
	return ""
}

// neo4jPattern is the FOR pattern of a Neo4j index: (n:Label) or ()-[e:TYPE]-().
func neo4jPattern(ix index) string {
	if ix.edge {
		return "()-[e:" + ix.label + "]-()"
	}
	return "(n:" + ix.label + ")"
}

// neo4jProps lists the indexed properties as n.p or e.p.
func neo4jProps(ix index) string {
	v := "n."
	if ix.edge {
		v = "e."
	}
	ps := make([]string, len(ix.props))
	for i, p := range ix.props {
		ps[i] = v + p
	}
	return strings.Join(ps, ", ")
}
