// Package sinks defines how every sink reads the finished graph: the Source interface, an
// in-memory Source for tests (MemSource), and the helpers all sinks share.
//
// Contract:
//   - A Source streams each kind of record through a callback in a fixed, documented order, so
//     every sink's output is deterministic. A callback error stops the stream and is returned
//     (wrapped) by the Source method.
//   - Sinks never hold a whole table in memory. Graphiti's Episodic.entity_edges, which the
//     Source does not store, comes from EpisodeEdges: one group's map episode uuid → fact uuids
//     at a time when the Source is a GroupFactReader (the checkpoint store), else EntityEdges,
//     the whole graph's map.
//   - The file exports live in sinks/parquet and sinks/cypherl; the Cypher statement text shared by
//     the CYPHERL export and the Bolt loader lives in sinks/memgraph.
package sinks
