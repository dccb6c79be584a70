package graphdb

import "context"

// Observer watches a load; package telemetry implements it (a span per write transaction in
// the GenAI memory conventions, the rows written and the verifications counted).
// Options.Observer nil watches nothing.
type Observer interface {
	// Batch is called before a batch of rows is sent as one write transaction; end is called
	// once it committed (err nil) or failed, with the tries beyond the first.
	Batch(ctx context.Context, b Batch) (end func(retries int, err error))
	// Verified receives the outcome of the count verification of a chunk of groups (settle):
	// mismatch is true when the database held other counts than the rows written.
	Verified(ctx context.Context, dialect string, groups int, mismatch bool)
}

// Batch is one write transaction of the loader.
type Batch struct {
	Dialect string // the sink's dialect (cypher.Dialect)
	Graph   string // the database written ("" for the server's default) or, on FalkorDB, the graph
	Rows    int
	Bytes   int  // the rows' bytes as sent
	Edges   bool // relationships; else nodes
}
