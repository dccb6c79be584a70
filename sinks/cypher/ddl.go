package cypher

import (
	"fmt"
	"slices"
	"strings"
)

// DefaultVectorCapacity is the initial capacity of a Memgraph vector index; Memgraph grows a full
// index by its resize coefficient (2 by default).
const DefaultVectorCapacity = 100_000

// IndexMode says which indexes a Neo4j load has online when it returns (sink.indexes). Memgraph
// builds every index as it creates it, so there the modes differ in nothing.
type IndexMode string

// Index modes. The node lookup indexes are online before the first write in every mode.
const (
	// IndexesOnline: every index is online when the load returns. The vector indexes are
	// created before the first write and Neo4j keeps them up to date row by row; Graphiti's
	// range and full-text indexes are created after the last write and awaited.
	IndexesOnline IndexMode = "online"
	// IndexesGraphiti (the default): the indexes Graphiti's search reads (range and full-text)
	// are created after the last write and awaited, as in IndexesOnline; the vector indexes,
	// which Graphiti's search does not use (it computes vector.similarity.cosine over the
	// group's rows), are created after them and Neo4j populates them after the load returns.
	IndexesGraphiti IndexMode = "graphiti"
	// IndexesBackground: only the node lookup indexes are awaited; every other index is
	// created after the last write and Neo4j populates it after the load returns.
	IndexesBackground IndexMode = "background"
)

// DefaultIndexMode is the index mode of a load that names none.
const DefaultIndexMode = IndexesGraphiti

// ParseIndexMode checks an index mode name; "" is DefaultIndexMode.
func ParseIndexMode(s string) (IndexMode, error) {
	switch m := IndexMode(s); m {
	case "":
		return DefaultIndexMode, nil
	case IndexesOnline, IndexesGraphiti, IndexesBackground:
		return m, nil
	}
	return "", fmt.Errorf("index mode %q is not %s, %s or %s", s, IndexesOnline, IndexesGraphiti, IndexesBackground)
}

// VectorsAfter reports whether m creates the Neo4j vector indexes after the last write.
func (m IndexMode) VectorsAfter() bool { return m == IndexesGraphiti || m == IndexesBackground }

// SchemaOptions configures the vector indexes (Neo4j: PreLoad, or PostLoad when
// Indexes.VectorsAfter; Memgraph: PostLoad) and, on Neo4j, which indexes after the load are
// awaited.
type SchemaOptions struct {
	VectorDims     int // embedding dimensions; 0 or less creates no vector index
	VectorCapacity int // Memgraph initial vector index capacity; 0 means DefaultVectorCapacity
	// Indexes is the index mode on Neo4j; "" is IndexesOnline here (the statements of a
	// plain load, DDL), while the loader's default is DefaultIndexMode.
	Indexes IndexMode
	// Bulk says the load goes through BulkBegin and BulkEnd: Memgraph's uniqueness constraints
	// then come in PostLoad (analytical mode allows none), else in PreLoad, so no duplicate can be
	// written.
	Bulk bool
}

// IndexesAfterLoad lists the names of the indexes a Neo4j load with o does not await after its
// last write: the ones Neo4j may still populate when the load returns (with IndexesOnline the
// vector indexes, online since before the first write and asked about as a check).
func IndexesAfterLoad(o SchemaOptions) []string {
	var ixs []index
	if o.Indexes == IndexesBackground {
		ixs = slices.Concat(edgeLookups, rangeIndexes, textIndexes)
	}
	return indexNames(append(ixs, vectorsIf(o)...))
}

// index is one index of the Graphiti schema.
type index struct {
	name   string   // Graphiti's name (Neo4j, Memgraph text and vector indexes)
	label  string   // node label or relationship type
	edge   bool     // label is a relationship type
	props  []string // one for range and vector indexes, several for text indexes
	unique bool     // a uuid: Neo4j gets a uniqueness constraint of this name instead of the range index
}

// nodeLookups are the range indexes the load reads nodes through: every uuid (MERGE, the
// endpoints of relationships, settle deletes) and group_id (which groups the database holds,
// settle lists and counts). Graphiti creates them too, with these names.
var nodeLookups = []index{
	{"entity_uuid", "Entity", false, []string{"uuid"}, true},
	{"episode_uuid", "Episodic", false, []string{"uuid"}, true},
	{"community_uuid", "Community", false, []string{"uuid"}, true},
	{"entity_group_id", "Entity", false, []string{"group_id"}, false},
	{"episode_group_id", "Episodic", false, []string{"group_id"}, false},
	{"community_group_id", "Community", false, []string{"group_id"}, false},
}

// edgeLookups are the range indexes settling a group that was in the database before reads
// relationships through (lists by group_id, deletes and counts by uuid). A load of new groups
// does not need them (relationships are counted from their source nodes): Graphiti's names,
// plus has_member_group_id.
var edgeLookups = []index{
	{"relation_uuid", "RELATES_TO", true, []string{"uuid"}, true},
	{"mention_uuid", "MENTIONS", true, []string{"uuid"}, true},
	{"has_member_uuid", "HAS_MEMBER", true, []string{"uuid"}, true},
	{"relation_group_id", "RELATES_TO", true, []string{"group_id"}, false},
	{"mention_group_id", "MENTIONS", true, []string{"group_id"}, false},
	{"has_member_group_id", "HAS_MEMBER", true, []string{"group_id"}, false},
}

// rangeIndexes are Graphiti's other range indexes, in Graphiti's order: searches use them, the
// load does not.
var rangeIndexes = []index{
	{"name_entity_index", "Entity", false, []string{"name"}, false},
	{"created_at_entity_index", "Entity", false, []string{"created_at"}, false},
	{"created_at_episodic_index", "Episodic", false, []string{"created_at"}, false},
	{"valid_at_episodic_index", "Episodic", false, []string{"valid_at"}, false},
	{"name_edge_index", "RELATES_TO", true, []string{"name"}, false},
	{"created_at_edge_index", "RELATES_TO", true, []string{"created_at"}, false},
	{"expired_at_edge_index", "RELATES_TO", true, []string{"expired_at"}, false},
	{"valid_at_edge_index", "RELATES_TO", true, []string{"valid_at"}, false},
	{"invalid_at_edge_index", "RELATES_TO", true, []string{"invalid_at"}, false},
}

// textIndexes are Graphiti's full-text indexes.
var textIndexes = []index{
	{"episode_content", "Episodic", false, []string{"content", "source", "source_description", "group_id"}, false},
	{"node_name_and_summary", "Entity", false, []string{"name", "summary", "group_id"}, false},
	{"community_name", "Community", false, []string{"name", "group_id"}, false},
	{"edge_name_and_fact", "RELATES_TO", true, []string{"name", "fact", "group_id"}, false},
}

// vectorIndexes are the embedding indexes (cosine).
var vectorIndexes = []index{
	{"name_embedding_entity_index", "Entity", false, []string{"name_embedding"}, false},
	{"fact_embedding_edge_index", "RELATES_TO", true, []string{"fact_embedding"}, false},
	{"name_embedding_community_index", "Community", false, []string{"name_embedding"}, false},
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
		ixs = slices.Concat(nodeLookups, edgeLookups, rangeIndexes)
	case TextIndex:
		ixs = textIndexes
	case VectorIndex:
		ixs = vectorIndexes
	}
	return indexNames(ixs)
}

// indexNames lists the names of ixs in order.
func indexNames(ixs []index) []string {
	out := make([]string, len(ixs))
	for i, ix := range ixs {
		out[i] = ix.name
	}
	return out
}

// uniqueLabels get a uuid uniqueness constraint on Memgraph, which has none for relationships.
// Neo4j gets one for every uuid index (index.unique, neo4jRange), FalkorDB one per graph
// (falkorSchema).
var uniqueLabels = []string{"Entity", "Episodic", "Community"}

// LabelLease is the label of the lease nodes (see Lease statements): one per group being
// loaded, which Graphiti never reads.
const LabelLease = "BackfillLease"

// memgraphUnique creates the uuid uniqueness constraints of uniqueLabels and the lease
// constraint (a second lease of a group cannot be created while one exists).
func memgraphUnique() []Statement {
	var out []Statement
	for _, l := range uniqueLabels {
		st := auto(fmt.Sprintf("CREATE CONSTRAINT ON (n:%s) ASSERT n.uuid IS UNIQUE", l))
		st.Constraint = l + "(uuid)"
		out = append(out, st)
	}
	return append(out, auto("CREATE CONSTRAINT ON (n:"+LabelLease+") ASSERT n.group IS UNIQUE"))
}

// neo4jLease is the Neo4j constraint on the lease nodes: MERGE of a lease is atomic with it.
func neo4jLease() Statement {
	return tx("CREATE CONSTRAINT backfill_lease_group IF NOT EXISTS FOR (n:" + LabelLease + ") REQUIRE n.group IS UNIQUE")
}

// DDL returns every schema statement of dialect d in the order of a plain (non-bulk) load:
// PreLoad then PostLoad. vectorDims <= 0 creates no vector index.
func DDL(d Dialect, vectorDims int) []Statement {
	o := SchemaOptions{VectorDims: vectorDims}
	pre := PreLoad(d, o)
	if pre == nil {
		return nil
	}
	return append(pre, PostLoad(d, o)...)
}

// PreLoad returns the statements to run before any node is written (on FalkorDB, of each group's
// graph: every index and the uuid constraints, see falkorSchema): the node lookup indexes (on
// Neo4j the uuid ones as uniqueness constraints, see neo4jRange) and the lease constraint, on
// Memgraph without o.Bulk the uuid uniqueness constraints, on Neo4j also the vector indexes
// (when o.VectorDims > 0 and not o.Indexes.VectorsAfter), then on Neo4j a wait until they are
// online (so the first batches are planned with them). Neo4j
// maintains an online vector index as rows are written; one created after a load populates in
// the background, which measured several times slower than the load itself (bench/results.md),
// but leaves the load's writes about twice as fast.
func PreLoad(d Dialect, o SchemaOptions) []Statement {
	if d == FalkorDB {
		return falkorSchema()
	}
	if d == Memgraph && !o.Bulk {
		return append(lookups(d, nodeLookups), memgraphUnique()...)
	}
	if d != Neo4j {
		return lookups(d, nodeLookups)
	}
	out := append(neo4jRange(nodeLookups), neo4jLease())
	if o.Indexes.VectorsAfter() {
		return append(out, neo4jAwait(nodeLookups))
	}
	if o.VectorDims > 0 {
		out = append(out, neo4jVector(o.VectorDims)...)
	}
	return append(out, neo4jAwait(slices.Concat(nodeLookups, vectorsIf(o))))
}

// vectorsIf is vectorIndexes when o creates them, else nothing.
func vectorsIf(o SchemaOptions) []index {
	if o.VectorDims > 0 {
		return vectorIndexes
	}
	return nil
}

// neo4jVector creates the Neo4j vector indexes (cosine, dims dimensions).
func neo4jVector(dims int) []Statement {
	var out []Statement
	for _, ix := range vectorIndexes {
		out = append(out, together(TogetherVector, fmt.Sprintf("CREATE VECTOR INDEX %s IF NOT EXISTS FOR %s ON (%s) "+
			"OPTIONS {indexConfig: {`vector.dimensions`: %d, `vector.similarity_function`: 'cosine'}}",
			ix.name, neo4jPattern(ix), neo4jProps(ix), dims)))
	}
	return out
}

// EdgeLookups returns the statements that create the relationship lookup indexes (on Neo4j, and
// wait until they are online): what settling a group the database held before needs. PostLoad
// creates them too.
func EdgeLookups(d Dialect) []Statement { return lookups(d, edgeLookups) }

// lookups creates range indexes and, on Neo4j, waits until they are online.
func lookups(d Dialect, ixs []index) []Statement {
	switch d {
	case Memgraph:
		return memgraphRange(ixs)
	case Neo4j:
		return append(neo4jRange(ixs), neo4jAwait(ixs))
	}
	return nil
}

// PostLoad returns the statements to run after every relationship is written: the relationship
// lookup and the other range indexes (on Neo4j the uuid ones as uniqueness constraints) and the
// full-text indexes, on Memgraph also the vector indexes (when o.VectorDims > 0) and with o.Bulk
// the uniqueness constraints BulkBegin dropped. On Neo4j they are
// awaited (CALL db.awaitIndex for each), except with IndexesBackground; with
// o.Indexes.VectorsAfter the vector indexes are created here, last (after the wait), and not
// awaited. Memgraph builds every index as it creates it.
func PostLoad(d Dialect, o SchemaOptions) []Statement {
	ranges := slices.Concat(edgeLookups, rangeIndexes)
	var out []Statement
	switch d {
	case Memgraph:
		out = memgraphRange(ranges)
		if o.VectorDims > 0 {
			for _, ix := range vectorIndexes {
				out = append(out, auto(fmt.Sprintf(
					`CREATE VECTOR %sINDEX %s ON :%s(%s) WITH CONFIG {"dimension": %d, "capacity": %d, "metric": "cos"}`,
					edgeWord(ix), ix.name, ix.label, ix.props[0], o.VectorDims, o.capacity())))
			}
		}
		for _, ix := range textIndexes {
			out = append(out, auto(fmt.Sprintf("CREATE TEXT %sINDEX %s ON :%s(%s)",
				edgeWord(ix), ix.name, ix.label, strings.Join(ix.props, ", "))))
		}
		if o.Bulk {
			out = append(out, memgraphUnique()...)
		}
	case Neo4j:
		out = neo4jRange(ranges)
		for _, ix := range textIndexes {
			out = append(out, together(TogetherText, fmt.Sprintf("CREATE FULLTEXT INDEX %s IF NOT EXISTS FOR %s ON EACH [%s]",
				ix.name, neo4jPattern(ix), neo4jProps(ix))))
		}
		if o.Indexes != IndexesBackground {
			out = append(out, neo4jAwait(slices.Concat(ranges, textIndexes)))
		}
		if o.Indexes.VectorsAfter() && o.VectorDims > 0 {
			out = append(out, neo4jVector(o.VectorDims)...)
		}
	default:
		return nil
	}
	return out
}

func (o SchemaOptions) capacity() int {
	if o.VectorCapacity <= 0 {
		return DefaultVectorCapacity
	}
	return o.VectorCapacity
}

// memgraphRange creates Memgraph label-property and edge-type-property indexes.
func memgraphRange(ixs []index) []Statement {
	out := make([]Statement, 0, len(ixs))
	for _, ix := range ixs {
		out = append(out, auto(fmt.Sprintf("CREATE %sINDEX ON :%s(%s)", edgeWord(ix), ix.label, ix.props[0])))
	}
	return out
}

// neo4jRange creates Neo4j range indexes, and for the uuids (index.unique) uniqueness
// constraints of the same names first, each in its own transaction (a constraint that cannot be
// created must not undo the indexes). The constraint's own index has the index's name, so
// Graphiti's CREATE INDEX … IF NOT EXISTS of that name succeeds beside it and db.awaitIndex
// finds it (checked on Neo4j 5.26). A range index of the name from an earlier load or from
// Graphiti blocks the constraint: Replaces drops it; a constraint that still cannot be created
// (duplicates in the data) falls back to the range index (Fallback).
func neo4jRange(ixs []index) []Statement {
	var out, ranges []Statement
	for _, ix := range ixs {
		rangeIx := fmt.Sprintf("CREATE INDEX %s IF NOT EXISTS FOR %s ON (%s)", ix.name, neo4jPattern(ix), neo4jProps(ix))
		if !ix.unique {
			ranges = append(ranges, together(TogetherRange, rangeIx))
			continue
		}
		out = append(out, Statement{
			Cypher:     fmt.Sprintf("CREATE CONSTRAINT %s IF NOT EXISTS FOR %s REQUIRE %s IS UNIQUE", ix.name, neo4jPattern(ix), neo4jProps(ix)),
			Constraint: ix.name,
			Replaces:   "DROP INDEX " + ix.name + " IF EXISTS",
			Duplicates: anyDuplicate(ix),
			Fallback:   rangeIx,
		})
	}
	return append(out, ranges...)
}

// neo4jAwait waits (up to 300 s each) until the named indexes are online; it fails when one
// failed to populate. Naming them spares waiting for other indexes still populating (the vector
// indexes of an earlier or concurrent load); the fallback waits for every index.
func neo4jAwait(ixs []index) Statement {
	names := make([]string, len(ixs))
	for i, ix := range ixs {
		names[i] = "'" + ix.name + "'"
	}
	st := tx("UNWIND [" + strings.Join(names, ", ") + "] AS name CALL db.awaitIndex(name, 300)")
	st.Fallback = "CALL db.awaitIndexes(300)"
	return st
}

// anyDuplicate is the query returning one uuid that more than one element of ix's label or type
// holds, with how many.
func anyDuplicate(ix index) string {
	if ix.edge {
		return "MATCH ()-[r:" + ix.label + "]->() WITH r.uuid AS uuid, count(r) AS c WHERE c > 1 RETURN uuid, c LIMIT 1"
	}
	return "MATCH (n:" + ix.label + ") WITH n.uuid AS uuid, count(n) AS c WHERE c > 1 RETURN uuid, c LIMIT 1"
}

// BulkBegin returns the statements that switch to bulk-load mode after PreLoad: on Memgraph the
// uuid uniqueness constraints are dropped (Memgraph ≥ 3.8 refuses the switch while constraints
// exist; dropping one that does not exist is only a notification) and the storage mode becomes
// IN_MEMORY_ANALYTICAL (no WAL, no rollback). PostLoad creates the constraints again. Empty for
// Neo4j.
func BulkBegin(d Dialect) []Statement {
	if d != Memgraph {
		return nil
	}
	var out []Statement
	for _, l := range uniqueLabels {
		out = append(out, auto(fmt.Sprintf("DROP CONSTRAINT ON (n:%s) ASSERT n.uuid IS UNIQUE", l)))
	}
	out = append(out, auto("DROP CONSTRAINT ON (n:"+LabelLease+") ASSERT n.group IS UNIQUE"))
	return append(out, auto("STORAGE MODE IN_MEMORY_ANALYTICAL"))
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

// Together values of the Neo4j index statements (Statement.Together).
const (
	TogetherRange  = "range"
	TogetherText   = "text"
	TogetherVector = "vector"
)

func together(kind, c string) Statement { return Statement{Cypher: c, Together: kind} }

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

// UnreadyIndexes returns the query listing the indexes of $names that are not online (name,
// state, populationPercent) on Neo4j, where an index can populate in the background; "" for
// Memgraph, which builds an index when it creates it.
func UnreadyIndexes(d Dialect) string {
	if d != Neo4j {
		return ""
	}
	return "SHOW INDEXES YIELD name, state, populationPercent WHERE name IN $names AND state <> 'ONLINE' " +
		"RETURN name, state, populationPercent ORDER BY name"
}
