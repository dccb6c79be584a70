// Package embed is the embed stage: one unit per group. It embeds every entity name and fact
// sentence of the group through the job's embedder (which batches requests and caches vectors by
// text) and writes the vectors onto the entities and facts, a bounded chunk of texts at a time,
// so memory does not grow with the group's vectors; the unit is recorded after the last chunk. A
// chunk whose embeddings answer stays bad (transport.IsBadAnswer) is left without vectors and the unit
// is recorded as failed (stages.Degraded), to run again on the next run.
// Community names are embedded by the community stage, which creates them.
//
// Batch mode (embedder.mode: batch): 2 waves; every chunk of a group is queued in the first (a
// chunk that waits does not stop the next one), the second writes the vectors and commits.
package embed
