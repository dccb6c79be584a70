package graphdb

import (
	"context"

	"github.com/tkgraph/backfill/sinks/cypher"
)

// executor runs statements against one database server, each in a graph: a database name over
// Bolt (boltExec: Memgraph, Neo4j), a graph name over RESP (respExec: FalkorDB). Tests use a
// fake.
type executor interface {
	// encode turns a batch row into what exec sends for it in $rows, and its size in bytes as
	// sent (what Options.BatchBytes bounds).
	encode(row cypher.Row) (any, int, error)
	// exec runs a write: on Bolt AutoCommit statements in an auto-commit transaction
	// (session.Run), the others in an explicit transaction that it commits; on RESP one
	// GRAPH.QUERY, which FalkorDB runs atomically, or st.Command (Bolt: an error).
	exec(ctx context.Context, graph string, st cypher.Statement, params map[string]any) error
	// queryWrite runs a write that returns rows, in one transaction (RESP: one GRAPH.QUERY), and
	// calls fn with each record's values; the transaction commits after the last one.
	queryWrite(ctx context.Context, graph, text string, params map[string]any, fn func([]any) error) error
	// execAll runs statements without parameters in one explicit transaction that it commits
	// (on RESP one after the other).
	execAll(ctx context.Context, graph string, sts []cypher.Statement) error
	// query runs a read and calls fn with each record's values in RETURN order. A FalkorDB
	// graph that does not exist reads as empty.
	query(ctx context.Context, graph, text string, params map[string]any, fn func([]any) error) error
	// ping checks that the server answers.
	ping(ctx context.Context) error
	close(ctx context.Context) error
}
