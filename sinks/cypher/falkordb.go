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
// waited for them after each group measured slower (docs/graph-databases.md, "FalkorDB specifics").
//
// A multi-property CREATE INDEX fails as a whole when one of its properties is indexed already
// ("Attribute 'uuid' is already indexed"; checked on FalkorDB 4.16.3), so the range indexes are
// created one property at a time: the same indexes, and a graph where another writer created
// some of them still gets the rest.
var falkorRange = []index{
	{label: "Entity", edge: false, props: []string{"uuid", "group_id", "name", "created_at"}},
	{label: "Episodic", edge: false, props: []string{"uuid", "group_id", "created_at", "valid_at"}},
	{label: "Community", edge: false, props: []string{"uuid"}},
	{label: "Saga", edge: false, props: []string{"uuid", "group_id", "name"}},
	{label: "RELATES_TO", edge: true, props: []string{"uuid", "group_id", "name", "created_at", "expired_at", "valid_at", "invalid_at"}},
	{label: "MENTIONS", edge: true, props: []string{"uuid", "group_id"}},
	{label: "HAS_MEMBER", edge: true, props: []string{"uuid"}},
	{label: "HAS_EPISODE", edge: true, props: []string{"uuid", "group_id"}},
	{label: "NEXT_EPISODE", edge: true, props: []string{"uuid", "group_id"}},
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

// falkorUnique are the labels and types whose uuid gets a uniqueness constraint in every graph:
// FalkorDB has them for nodes and relationships (GRAPH.CONSTRAINT, a command, not Cypher), each
// backed by the uuid range index created before it.
var falkorUnique = []struct {
	label string
	edge  bool
}{{LabelEntity, false}, {LabelEpisodic, false}, {LabelCommunity, false},
	{TypeRelatesTo, true}, {TypeMentions, true}, {TypeHasMember, true}}

// falkorSchema is every schema statement of a FalkorDB graph (PreLoad): Graphiti's range
// indexes, the uuid uniqueness constraints, Graphiti's full-text indexes. FalkorDB builds a
// constraint in the background (PENDING, then OPERATIONAL, or FAILED when the graph holds
// duplicates): the loader waits for them (ConstraintStates).
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
	for _, u := range falkorUnique {
		out = append(out, falkorConstraint("CREATE", u.label, u.edge))
	}
	for _, s := range falkorText {
		out = append(out, auto(s))
	}
	return out
}

// falkorConstraint is the GRAPH.CONSTRAINT command (op CREATE or DROP) of the uuid uniqueness
// constraint of label; its Constraint names it "Label(uuid)".
func falkorConstraint(op, label string, edge bool) Statement {
	kind := "NODE"
	if edge {
		kind = "RELATIONSHIP"
	}
	cmd := []string{"GRAPH.CONSTRAINT", op, GraphArg, "UNIQUE", kind, label, "PROPERTIES", "1", "uuid"}
	return Statement{Cypher: strings.Join(cmd, " "), AutoCommit: true, Command: cmd, Constraint: label + "(uuid)"}
}

// FalkorDropConstraint is the command that drops the uuid constraint a FalkorDB graph failed to
// build (Statement.Constraint "Label(uuid)"), so a later load can create it again.
func FalkorDropConstraint(name string) (Statement, bool) { return falkorNamed("DROP", name) }

// FalkorCreateConstraint is the command that creates the uuid constraint named name
// (Statement.Constraint "Label(uuid)").
func FalkorCreateConstraint(name string) (Statement, bool) { return falkorNamed("CREATE", name) }

func falkorNamed(op, name string) (Statement, bool) {
	for _, u := range falkorUnique {
		if u.label+"(uuid)" == name {
			return falkorConstraint(op, u.label, u.edge), true
		}
	}
	return Statement{}, false
}

// ConstraintStates lists the state of the uniqueness constraints of a FalkorDB graph: label or
// type, properties, state (PENDING, OPERATIONAL, FAILED). Empty for the other dialects, whose
// constraints are built when they are created.
func ConstraintStates(d Dialect) string {
	if d != FalkorDB {
		return ""
	}
	return "CALL db.constraints() YIELD label, properties, status RETURN label, properties, status"
}

// neo4jExists are the Neo4j error codes saying a schema element of that name or schema exists:
// what two sessions creating the same index or constraint at once get even with IF NOT EXISTS
// (EquivalentSchemaRuleAlreadyExists; graphiti-core's Neo4jDriver ignores it too), and its
// siblings for a name or an equivalent element already there.
var neo4jExists = []string{
	"Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
	"Neo.ClientError.Schema.IndexAlreadyExists",
	"Neo.ClientError.Schema.IndexWithNameAlreadyExists",
	"Neo.ClientError.Schema.ConstraintAlreadyExists",
	"Neo.ClientError.Schema.ConstraintWithNameAlreadyExists",
}

// SchemaExists reports whether err, returned by a schema statement of dialect d, says that the
// element exists already, so that running the statement again is a no-op: Memgraph has no IF NOT
// EXISTS for text and vector indexes and constraints ("already exists"), FalkorDB none for any
// index or constraint ("Attribute 'uuid' is already indexed", which graphiti-core's FalkorDriver
// ignores too; "Constraint already exists"), and Neo4j reports concurrent creation of the same
// element with one of neo4jExists. For a constraint statement the loader asks IndexBlocks first.
func SchemaExists(d Dialect, err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	switch d {
	case Memgraph:
		return strings.Contains(msg, "already exists")
	case FalkorDB:
		return strings.Contains(msg, "already indexed") || strings.Contains(msg, "constraint already exists")
	case Neo4j:
		for _, code := range neo4jExists {
			if strings.Contains(err.Error(), code) {
				return true
			}
		}
	}
	return false
}

// IndexBlocks reports whether err, returned by a Neo4j constraint statement, says an index of
// the same name or schema stands in its way (a range index an earlier load or Graphiti created):
// the statement's Replaces drops it.
func IndexBlocks(d Dialect, err error) bool {
	if d != Neo4j || err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "Neo.ClientError.Schema.IndexWithNameAlreadyExists") ||
		strings.Contains(msg, "Neo.ClientError.Schema.IndexAlreadyExists")
}

// UniqueViolation reports whether err says a write broke a uuid uniqueness constraint: Neo4j's
// ConstraintValidationFailed, Memgraph's and FalkorDB's "unique constraint violation".
func UniqueViolation(d Dialect, err error) bool {
	if err == nil {
		return false
	}
	if d == Neo4j {
		return strings.Contains(err.Error(), "Neo.ClientError.Schema.ConstraintValidationFailed")
	}
	return strings.Contains(strings.ToLower(err.Error()), "unique constraint violation")
}

// noGraph is what FalkorDB answers a read of a graph that does not exist.
const noGraph = "invalid graph operation on empty key"

// MissingGraph reports whether err is FalkorDB's answer to a read-only query (GRAPH.RO_QUERY)
// of a graph that does not exist: the graph holds nothing.
func MissingGraph(err error) bool {
	return err != nil && strings.Contains(strings.ToLower(err.Error()), noGraph)
}
