// Package graph holds the domain types of the temporal knowledge graph (Episode, Entity, Fact,
// Mention, Community, FactVersion, and Record: what ingest read from a JSON record), their
// deterministic UUIDv5 ids, the time helpers shared by every stage, and the as-of view of the fact
// version log (AsOf, Known, and the Reason… a version is recorded for) that the temporal stage
// writes and the read side (query, eval, diff, timeline) reads.
//
// Contract:
//   - Every id is a UUIDv5 in the Namespace below, computed from stable keys only, so a re-run, a
//     resume or another shard produces the same ids (docs/architecture.md, "The data model").
//   - Times are always UTC; an absent time is a nil *time.Time, never a zero value.
//   - Types carry no behaviour beyond small pure helpers; persistence lives in checkpoints/.
package graph
