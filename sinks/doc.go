// Package sinks defines how every sink reads the finished graph: the Source interface (one group
// at a time; the checkpoint store satisfies it), an in-memory Source for tests (MemSource), and
// the helpers all sinks share.
//
// Contract:
//   - A Source lists its groups in order and streams each kind of record of one group through a
//     callback in a fixed, documented order, so every sink's output is deterministic. A callback
//     error stops the stream and is returned (wrapped) by the Source method.
//   - Sinks hold at most one group in memory. Graphiti's Episodic.entity_edges, which the Source
//     does not store, comes from EntityEdges: one group's map episode uuid → fact uuids.
//   - The file exports live in sinks/parquet and sinks/cypherl, the graph database loader
//     (Memgraph and Neo4j over Bolt, FalkorDB over RESP) in sinks/graphdb; the Cypher text, the
//     literals and the batching rule shared by the CYPHERL export and the loader live in
//     sinks/cypher.
package sinks
