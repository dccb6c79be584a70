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
// In both modes the answers pass the hygiene rules (hygiene.go, HygieneVersion), whatever the
// model answered: entities without a name, of an excluded type (Options.ExcludedTypes,
// case-insensitive), that are numbers, amounts, dates or words of the input (source types, input
// field names, a record's field names) are dropped (the speaker always stays); entities named
// twice are merged; facts are kept only between two different kept entities. Each repair is
// counted by kind in Env.Repairs (the report's llm.answers_repaired).
//
// An answer still bad after the client's retries fails the unit: it is committed as failed with
// an empty output, so downstream the episode has no extraction until a later run succeeds
// (stages.Commit). The unit fingerprint covers the mode, the hygiene rules, the task versions it
// uses (model, prompts, schema, request parameters), the ontology and the input.
package extract
