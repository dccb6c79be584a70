package cypher

// Batch bounds shared by the Bolt loader (sinks/graphdb) and the CYPHERL export
// (sinks/cypherl): one UNWIND statement carries at most DefaultBatchSize rows and
// DefaultBatchBytes bytes of rows, unless the job sets sink.batch_size / sink.batch_bytes.
const (
	DefaultBatchSize  = 2000
	DefaultBatchBytes = 2 << 20
)
