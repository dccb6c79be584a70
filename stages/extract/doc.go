// Package extract is the extract stage: one unit per episode, all in parallel. Each unit asks the
// LLM for the entities and facts of one episode, given the previous N episodes of its group as raw
// text for context, and stores the answer (Output, as JSON) as the unit's output. It needs no
// graph state, so the whole backfill's extraction runs at the LLM's pace.
//
// JSON records (episodes with a graph.Record: sources with mapping.object, json.text_fields or
// facts) are planned by Group.Plan instead:
//   - context: no previous episodes; a snapshot of an object with an earlier snapshot (by
//     reference time, so a late record finds the snapshot that preceded it in time) gets the
//     change list against it (llm.SnapshotIn: "path: old → new", "path: + added", "path: -
//     removed", at most MaxChanges lines, values cut at MaxChangeRunes); the first snapshot has
//     none, nor has a record of no object. The record's declared facts are given as known facts
//     (llm.ExtractInput.Known, at most MaxKnown);
//   - with text fields, the LLM sees only the text fields whose value is new or changed and is
//     asked only when there is one; without, it sees the whole pruned record and is asked only
//     when some change lies outside the fields the declared facts read (graph.Record.FactPaths);
//   - Options.NoLLM (stages.extract.llm: off) asks nothing for any episode.
//
// The output of a record also carries its object and declared facts (Output.Object,
// Output.Declared) as ingest read them from the full record, so an extraction holds every
// statement of its episode; the resolve stage turns declared facts into fact periods. A unit's
// fingerprint covers its LLM input (context included), whether it asks, and the record, so an
// unchanged job re-runs nothing and asks nothing, and a late record re-runs only itself and the
// next snapshot of its object.
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
//
// Batch mode: ModeTwoCall takes 3 waves (every episode's entities call, then the facts calls,
// then the commit), ModeCombined 2.
package extract
