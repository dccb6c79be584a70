// Package extract is the extract stage: one unit per episode, all in parallel. Each unit asks the
// LLM for the entities and facts of one episode, given the previous N episodes of its group as raw
// text for context, and stores the answer (Output, as JSON) as the unit's output. It needs no
// graph state, so the whole backfill's extraction runs at the LLM's pace.
//
// Two modes (Options.Mode):
//   - ModeTwoCall (default): llm.TaskExtractEntities lists the entities (with the ontology
//     attributes the episode states), then llm.TaskExtractFacts extracts the facts between them.
//     The second call is skipped when fewer than two entities were found, since a fact links two.
//   - ModeCombined: one llm.TaskExtract call answers both; entities get no attributes.
//
// In both modes, entities of an excluded type (Options.ExcludedTypes, case-insensitive) and the
// facts that name them are dropped from the output, whatever the model answered. The unit
// fingerprint covers the mode, the prompt versions it uses, the model, the ontology and the input.
package extract
