// Package stages holds what every pipeline stage shares: the environment a stage runs in (store,
// LLM, embedder, clock, record-time mode, concurrency, progress), the shape of a stage (Stage),
// unit fingerprints and the one recipe by which a stage's settings enter them (Key), the bounded
// unit runner, and what a plan needs to estimate a stage (PlanEnv, Estimate, Ratios). The stages
// themselves live in the sub-packages, one per stage, in pipeline order: ingest, extract,
// resolve, temporal, summarize, embed, community, load.
//
// Each stage package builds its Stage with New(Options) (embed has no options): its step, its
// options with their defaults (WithDefaults) and checks (Validate, where a stage has one), its
// Key, its Run (also a package function Run(ctx, Env, Options)) and its Estimate, reading only its
// Env and its Options. A stage declares its job keys (stages.<name>.*) on its Options itself
// (Declare, package internal/options); jobs/pipeline assembles them and adds what the stage
// reads from elsewhere (the ontology, declared here: Ontology). A stage with a
// section of its own in the run report beside its Stats (ingest, extract, temporal, community,
// load) is a Reporter.
//
// The step table (Steps, steps.go) names every step of a run, ingest and load included, in run
// order with its upstream and its unit: a group stage chains its upstream's fingerprints
// (Upstream). Stage packages never import each other: the outputs a later stage reads are
// declared here (outputs.go: Extraction, which resolve reads, and ResolvedFact, which temporal
// reads), as are the names of the steps. Algorithms that several stages use live in packages of
// their own (internal/unionfind, internal/workpool, graph.Predicate).
//
// A plan walks the same stages and calls Estimate, which calls nothing: a unit is done when the
// fingerprint a run would compute equals the one on record in the job's store (PlanEnv.Prev),
// computed by the same code as Run (a group stage's: PlanGroups, GroupFingerprint); done units
// cost nothing, and the others are estimated (extraction from its rendered prompts, later stages
// from Ratios and a typical prompt of each task).
//
// Contract of a stage: it processes units (an episode or a group) of one group each (Unit.Group:
// the runner marks the unit's context with it, checkpoints.ForGroup, so the LLM cache records
// which group's text each answer carried); a unit whose stored fingerprint
// equals the fingerprint of its current inputs is skipped; otherwise the unit's outputs and its
// record are committed together (checkpoints.Store.CommitUnit). Every fingerprint includes the
// fingerprints of the upstream units it read, so a change upstream re-runs exactly what depends on
// it, and the stage's Key: its options after their defaults, by the one recipe Key (KeyRecipe
// names it), and for a stage that asks the LLM the versions of the tasks it asks
// (Env.TaskVersionsOf: model, temperature, prompt templates, schema and every other request
// parameter, as the LLM client defines them), so a change to an option or to how a task is asked
// re-runs exactly the units that depend on it; the stages after them re-run too, answered from
// the cache. Units run on a bounded pool; the first error cancels the stage.
//
// Bad answers fail units, not runs. A call whose answer is still invalid after the LLM client's
// retries, or that the provider refused as a request (transport.IsBadAnswer), is absorbed by the unit
// (Degraded) and the unit is committed as failed (Commit, checkpoints.Store.CommitFailedUnit):
// its outputs stand, its record carries the reason and the raw answer, and it reads back with
// checkpoints.FailedPrefix before its fingerprint, so the next run re-runs exactly the failed
// units (their good answers come from the LLM cache) and every stage downstream that hashed the
// failed record sees a change once the unit succeeds. RunStream counts failed units in
// Stats.Failed and stops the stage once they pass Env.MaxFailedRatio (limits.max_failed_ratio,
// judged after MinFailedSample units). What each stage puts in place of a bad answer:
//   - extract: the episode gets an empty extraction (no entities, no facts): downstream it counts
//     as having no extraction (the report's episodes_without_extraction);
//   - resolve: the pairs of the failed resolve_entities or dedupe_facts batch stay apart and are
//     not written to the memo, so the next run asks them again; a failed name embedding leaves
//     out the embedding pass, a failed fact embedding leaves fact dedupe to text similarity;
//   - temporal: the failed judge_fact finds no duplicate and no contradiction (nothing closes);
//   - summarize: the entities of the failed batch get their joined facts as the summary;
//   - embed: the entities and facts of the failed chunk keep no vector;
//   - community: a failed merge_summaries joins the two texts, a failed name_community takes the
//     fallback name (the first members' names), failed name embeddings leave the communities
//     without one.
//
// Embedding calls follow the same rule: an embeddings answer that stays unreadable after the
// embedder's retries is a bad answer (*wire.ValidationError), in every stage that embeds.
//
// The group stages degrade the one failed call rather than lose the group, because one group
// makes many calls and a single bad answer should not discard the others; the group is retried
// as a whole on the next run, answered from the cache except for the failed calls. Any other
// error (a service failure, the store) still fails the stage.
//
// Batch mode (Env.Batches): a unit whose LLM or embedder call waits for a provider batch
// (batch.ErrPending) is left uncommitted; Pool lets its sibling calls queue theirs. RunStream runs
// the stage in waves: one pass over the units queues every request they can make without
// another answer, the queued requests are submitted, RunStream waits for the batches and runs
// the pending units again (their earlier answers come back from the cache, not counted as cache
// hits: batch.Replaying), until none is pending; with Env.NoWait it returns a *PendingError after
// the first pass that left units pending. A stage needs one wave per call in the longest chain
// of calls of one unit that wait on each other's answers, plus the one that commits; each
// stage's doc says how many.
//
// Telemetry: Env.Observer, when set, sees every unit that runs (Observer.Unit: its context is
// the unit's, so the unit's calls are its children in a trace) with its outcome, and the units
// counted without a run of their own (Observer.Units: the skipped ones, ingest's rows, the load's
// groups). The load stage hands it to its loader when it is a graphdb.Observer too.
//
// Interrupts: when Env.Stop closes, RunStream starts no new unit, and the LLM client's pacer,
// which shares the channel, refuses every new request (pacing.ErrStopped) — also the next call of
// a unit already running. Such a unit ends uncommitted (Pool keeps its sibling calls in flight
// running, so their answers are cached) and runs again on the next run.
package stages
