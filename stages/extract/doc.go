// Package extract is the extract stage: one unit per episode, all in parallel. Each unit asks the
// LLM for the entities and facts of one episode, given the previous N episodes of its group as raw
// text for context, and stores the answer (llm.ExtractOutput as JSON) as the unit's output. It
// needs no graph state, so the whole backfill's extraction runs at the LLM's pace.
package extract
