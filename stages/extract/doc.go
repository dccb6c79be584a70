// Package extract is the extract stage: one unit per episode (or per window of episodes, below),
// all in parallel. Each unit asks the LLM for the entities and facts of one episode, given
// previous episodes of its group as context, and stores the answer (Output, as JSON) as the
// unit's output. It needs no graph state, so the
// whole backfill's extraction runs at the LLM's pace.
//
// Context (Input): the previous episodes of the group, newest first, at most Options.Context of
// them and while their contents fit in Options.ContextTokens (wire.EstimateTokens); when even the
// latest does not fit, it is shown cut to its last ContextTokens after "…". A previous episode
// leaves out the reference time and source it shares with the episode. The JSON input writes the
// ontology first, then the episode, then its context (wire.ExtractInput).
//
// Chit-chat (IsChitchat): a message whose every sentence is an English question that names no one
// but the speakers of the conversation (the episode's and those of the SpeakerWindow episodes
// before it) and has no first-person word or digit, or courtesy (greetings, thanks, reactions and
// the function words joining them, in English and Korean), is not asked about unless
// Options.AskChitchat: its output is its speaker alone (an "Entity", unless excluded). The next
// message, which answers it, sees it as context. Options.Counts counts every unit committed as Asked
// or by the reason it was not (Plan.Skip: SkipChitchat, SkipCovered, SkipLLMOff).
//
// JSON records (episodes with a graph.Record: sources with mapping.object, json.text_fields or
// facts) are planned by Group.Plan instead:
//   - context: no previous episodes; a snapshot of an object with an earlier snapshot (by
//     reference time, so a late record finds the snapshot that preceded it in time) gets the
//     change list against it (wire.SnapshotIn: "path: old → new", "path: + added", "path: -
//     removed", at most MaxChanges lines, values cut at MaxChangeRunes); the first snapshot has
//     none, nor has a record of no object. The record's declared facts are given as known facts
//     (wire.ExtractInput.Known, at most MaxKnown);
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
// Windows (Options.Window above 1): the messages and texts of a group are extracted in windows of
// consecutive episodes (Windows: a window closes after a cut point, an episode whose uuid hashes
// to 0 modulo Window; at 3×Window episodes or Options.WindowTokens of content; and before an
// episode of another source or source description or Options.WindowGap later), one
// wire.TaskExtractWindow call per window that has an episode that would ask alone (not
// chit-chat). Its input is the context of the window's first episode and the window's episodes,
// numbered; the answer lists each episode's facts under its number. split shares the answer among
// the episodes and each share passes the hygiene rules with the episode's own input (repair), so
// the stored output stays one Output per episode. A window is one unit: its episodes' outputs
// and records are committed together (stages.CommitAll) under one fingerprint, which covers the
// window's input, whether it asks, why each episode would not ask alone and the episodes' ids;
// a window is done when all its episodes record that fingerprint. The boundaries depend only on
// the group's episodes, so shards and resumes see the same windows and an appended episode
// changes only the last window; a removed (forgotten) episode changes the window that held it and
// the context of each window starting within Options.Context episodes after it. JSON episodes
// keep their own units. The window options enter
// the key only when windowed, so per-episode jobs keep their fingerprints.
//
// Two modes (Options.Mode):
//   - ModeCombined (default): one wire.TaskExtract call answers both the entities (with the
//     ontology attributes the episode states) and the facts.
//   - ModeTwoCall: wire.TaskExtractEntities lists the entities (with their attributes), then
//     wire.TaskExtractFacts extracts the facts between them. The second call is skipped when fewer
//     than two entities were found, since a fact links two.
//
// In both modes the answers pass the hygiene rules (hygiene.go, HygieneVersion), whatever the
// model answered: entities without a name, of an excluded type (Options.ExcludedTypes,
// case-insensitive), that are numbers, amounts, dates or words of the input (source types, input
// field names, a record's field names) are dropped (the speaker always stays); entities named
// twice are merged; facts are kept only between two different entities, a fact endpoint no
// entity had being added as one when it is the speaker or a name the episode's content contains
// (repairer.addable). A kept fact whose sentence repeats a previous episode of the context
// rather than the extracted one (at least quoteWords words, quoteShare of them that episode's
// speaker and content words, under ownShare the extracted episode's) is cited to that episode
// (Output.Quoted; the resolve stage gives it that episode's place, reference time and
// citation). Each repair is counted by kind in Env.Repairs (the report's
// llm.answers_repaired).
//
// An answer still bad after the client's retries fails the unit: it is committed as failed with
// an empty output, so downstream the episode has no extraction until a later run succeeds
// (stages.Commit). The unit fingerprint covers the mode, the hygiene rules, the task versions it
// uses (model, prompts, schema, request parameters), the ontology, the input (its context
// included) and whether and why the LLM is not asked, so a change to the context bound or to the
// chit-chat rule re-runs only the units whose input or decision it changes.
//
// Batch mode: ModeTwoCall takes 3 waves (every episode's entities call, then the facts calls,
// then the commit), ModeCombined 2, windowed or not.
package extract
