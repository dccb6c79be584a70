package cypher

// Batch bounds shared by the graph database loader (sinks/graphdb) and the CYPHERL export
// (sinks/cypherl): one UNWIND statement carries at most DefaultBatchSize rows and
// DefaultBatchBytes bytes of rows, unless the job sets sink.batch_size / sink.batch_bytes.
const (
	DefaultBatchSize  = 2000
	DefaultBatchBytes = 2 << 20
)

// Limits is the one batching rule of every sink that writes UNWIND statements: rows are
// batched per statement, and a statement's batch is written once it holds Rows rows or Bytes
// bytes of rows, measured as they are sent (the caller's measure: the literal text in a script
// or a FalkorDB query, an estimate of the Bolt encoding for a Bolt parameter).
type Limits struct {
	Rows  int
	Bytes int
}

// Pending holds the rows waiting for one statement.
type Pending struct {
	Rows  []any
	Bytes int
}

// Add appends a row of size bytes and reports whether the batch is now full under l.
func (p *Pending) Add(l Limits, row any, size int) bool {
	p.Rows = append(p.Rows, row)
	p.Bytes += size
	return len(p.Rows) >= l.Rows || p.Bytes >= l.Bytes
}

// Take returns the rows and their bytes and empties p.
func (p *Pending) Take() (rows []any, bytes int) {
	rows, bytes = p.Rows, p.Bytes
	p.Rows, p.Bytes = nil, 0
	return rows, bytes
}
