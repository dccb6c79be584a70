package cypher

import "fmt"

// Dialect is the Cypher dialect of the target database.
type Dialect string

// The supported dialects.
const (
	Memgraph Dialect = "memgraph"
	Neo4j    Dialect = "neo4j"
	// FalkorDB keeps each group in a graph of its own (GraphPerGroup), as graphiti-core's
	// FalkorDriver does; times are strings (TimeText), embeddings vecf32 values.
	FalkorDB Dialect = "falkordb"
)

// ParseDialect returns the dialect named s, or an error for any other name.
func ParseDialect(s string) (Dialect, error) {
	switch d := Dialect(s); d {
	case Memgraph, Neo4j, FalkorDB:
		return d, nil
	}
	return "", fmt.Errorf("parsing dialect: unknown dialect %q (want memgraph, neo4j or falkordb)", s)
}

// GraphPerGroup reports whether dialect d keeps every group in a graph of its own, named by
// GraphName: true on FalkorDB, where graphiti-core reads and writes a group_id in the graph of
// that name. The other dialects keep every group in one database.
func (d Dialect) GraphPerGroup() bool { return d == FalkorDB }

// DefaultFalkorGraph is the graph graphiti-core's FalkorDriver uses for its default group id
// "_" (and when it is given no group).
const DefaultFalkorGraph = "default_db"

// GraphName is the graph that holds group on a GraphPerGroup dialect: the group id itself, or
// DefaultFalkorGraph for graphiti-core's default group id "_" (FalkorDriver.clone maps it so).
func GraphName(group string) string {
	if group == "_" {
		return DefaultFalkorGraph
	}
	return group
}

// Statement is one Cypher statement and how it must run.
type Statement struct {
	Cypher     string
	AutoCommit bool // run with session.Run, outside any explicit transaction
	// Together, when not empty, lets a schema statement share one transaction with the
	// adjacent statements of the same Together value (Neo4j index creation: one transaction
	// saves a round trip per index). The Neo4j indexes of one kind share a transaction, each
	// kind its own (TogetherRange, TogetherText, TogetherVector): Neo4j populates the indexes
	// of separate transactions concurrently, and after a load Graphiti's range and full-text
	// indexes came online in 0.6-0.9 of the time they took from one transaction
	// (bench/results.md, issue-19-bolt-split).
	Together string
	// Fallback, when set, is run instead once Cypher has failed: awaiting indexes by name fails
	// on Neo4j when an equivalent index exists under another name (CREATE … IF NOT EXISTS then
	// creates none), so the named wait falls back to waiting for every index.
	Fallback string
	// Constraint, when set, names the uniqueness constraint the statement creates. A constraint
	// that cannot be created (another index blocks it, or the data holds duplicates) is not an
	// error: Fallback (the range index it replaces) runs instead and the loader reports the
	// constraint as missing until a later load creates it.
	Constraint string
	// Replaces, when set, removes what blocks the statement: the loader runs it once the
	// statement failed on an index of the same name or schema (IndexBlocks), then the statement
	// again (Neo4j: a uniqueness constraint replaces the range index of the same name).
	Replaces string
	// Duplicates, with Replaces, is a query returning a uuid the constraint's label or type holds
	// more than once (none: no row); Replaces runs only when it finds none, since the constraint
	// could not be built on such data anyway.
	Duplicates string
	// Command, when set, is a FalkorDB command that is not Cypher (GRAPH.CONSTRAINT …), with
	// GraphArg where the graph's name goes; Cypher then only describes it.
	Command []string
}

// GraphArg stands for the graph's name in a Statement.Command.
const GraphArg = "{graph}"

// ValidIdentifier reports whether s may be interpolated into Cypher text as a label, relationship
// type or property name: ^[A-Za-z_][A-Za-z0-9_]*$.
func ValidIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
