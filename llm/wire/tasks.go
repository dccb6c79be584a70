package wire

// Task names. Each names one prompt template pair (system + user) in prompts/, one response JSON
// schema (the response_format json_schema name sent on the wire) and one input/output type pair
// below. The offline responder recognises a request by this name.
const (
	TaskExtract        = "extract_graph"      // ExtractInput → ExtractOutput
	TaskJudgeFact      = "judge_fact"         // JudgeInput → JudgeOutput
	TaskSummarize      = "summarize_entities" // SummarizeInput → SummarizeOutput
	TaskMergeSummaries = "merge_summaries"    // MergeInput → MergeOutput
	TaskNameCommunity  = "name_community"     // NameInput → NameOutput
)

// InputFence opens the block that ends every rendered user message: the task input as one JSON
// object, closed by "\n```". Models read it as data; the offline responder parses it.
const InputFence = "```json input\n"

// EpisodeIn is an episode as a prompt shows it. The current episode has every field; a previous
// episode (ExtractInput.Previous) leaves out its reference time and source when they are the
// current episode's.
type EpisodeIn struct {
	ReferenceTime string `json:"reference_time,omitempty"` // RFC 3339, UTC
	Source        string `json:"source,omitempty"`         // message|text|json
	Speaker       string `json:"speaker,omitempty"`
	Content       string `json:"content"`
}

// EntityTypeIn is a custom entity type of the job's ontology.
type EntityTypeIn struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Attributes  []string `json:"attributes,omitempty"`
}

// EdgeTypeIn is a custom fact type of the job's ontology.
type EdgeTypeIn struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Sources     []string `json:"sources,omitempty"` // allowed source entity types; empty = any
	Targets     []string `json:"targets,omitempty"`
}

// SnapshotIn is the context of a JSON record that is a snapshot of an object: how it differs
// from the object's previous snapshot (sources[].mapping.object).
type SnapshotIn struct {
	Object     string `json:"object"`      // the object's id
	PreviousAt string `json:"previous_at"` // reference time of the previous snapshot (RFC 3339, UTC)
	// Changes are "path: old → new", "path: + added" and "path: - removed" (array elements at
	// "path[]"), values as JSON; long values are cut with "…".
	Changes []string `json:"changes"`
}

// ExtractInput asks for the entities and facts of one episode. Its JSON writes the ontology
// first (the same for every episode of a job, so a provider's prompt cache can keep it), then
// the episode, then its context: with the episode last, a 1.5B model's gold F1 in one call
// was 0.279 against 0.368 (bench/results.md, eval-local-order).
type ExtractInput struct {
	EntityTypes []EntityTypeIn `json:"entity_types,omitempty"`
	EdgeTypes   []EdgeTypeIn   `json:"edge_types,omitempty"`
	// ExcludedTypes are entity types never to extract (possibly "Entity" itself).
	ExcludedTypes []string    `json:"excluded_types,omitempty"`
	Episode       EpisodeIn   `json:"episode"`
	Previous      []EpisodeIn `json:"previous"` // earlier episodes of the group, oldest first
	// Snapshot is the change list of a snapshot record against its object's previous snapshot
	// (then Previous is empty); nil otherwise.
	Snapshot *SnapshotIn `json:"snapshot,omitempty"`
	// Known are the facts the record's declared fields already state (sources[].facts), as
	// sentences: context, not to be extracted again.
	Known []string `json:"known_facts,omitempty"`
}

// ExtractedEntity is one entity named in the episode.
type ExtractedEntity struct {
	Name string `json:"name"`
	Type string `json:"type"` // a custom type name, or "Entity"
}

// ExtractedFact is one statement between two extracted entities. On the wire its endpoints are
// "subject" and "object": an answer field named "source" was filled by small models with the
// episode's own "source" field ("message", "json"), so no answer field shares a name with an
// input field the model reads next to it.
type ExtractedFact struct {
	Source    string  `json:"subject"`   // entity name as in Entities
	Target    string  `json:"object"`    // entity name as in Entities
	Predicate string  `json:"predicate"` // SCREAMING_SNAKE_CASE
	Fact      string  `json:"fact"`      // one sentence, in the episode's language
	ValidAt   *string `json:"valid_at"`  // RFC 3339 or null: when it became true
	InvalidAt *string `json:"invalid_at"`
	// Kind is "state" (an ongoing condition), "event" (happened once), "plan" (a plan, promise,
	// schedule or deadline, true from the day it was said) or "scheduled_state" (a state whose
	// future start is fixed by a schedule, such as a store closed from a given date).
	Kind string `json:"kind"`
}

// ExtractOutput is the answer to ExtractInput under TaskExtract: the entities, with the
// attributes of their types that the episode states, and the facts between them.
type ExtractOutput struct {
	Entities []EntityMention `json:"entities"`
	Facts    []ExtractedFact `json:"facts"`
}

// FactIn is a fact as the judgement prompt shows it.
type FactIn struct {
	ID        string  `json:"id,omitempty"` // "E0", "E1"… or "I0", "I1"… in candidate lists
	Predicate string  `json:"predicate"`
	Fact      string  `json:"fact"`
	ValidAt   *string `json:"valid_at"`
	InvalidAt *string `json:"invalid_at"`
}

// JudgeInput asks whether a new fact duplicates or contradicts earlier facts. Existing holds the
// facts between the same two entities (ids E0…); Candidates holds every fact that could be
// contradicted (ids I0…).
type JudgeInput struct {
	ReferenceTime string   `json:"reference_time"`
	New           FactIn   `json:"new_fact"`
	Existing      []FactIn `json:"existing_facts"`
	Candidates    []FactIn `json:"invalidation_candidates"`
}

// JudgeOutput lists the ids the new fact duplicates ("E…") and the facts it contradicts ("I…"),
// each with the words of the new fact that exclude the old one. The caller ignores malformed or
// unknown ids and applies only contradictions whose quote passes its checks (stages/temporal).
type JudgeOutput struct {
	Duplicates     []string        `json:"duplicate_ids"`
	Contradictions []Contradiction `json:"contradictions"`
}

// Contradiction is one contradicted candidate: its id ("I…") and Quote, the part of the new
// fact's sentence, copied word for word, that rules the old fact out ("left Acme", "no longer
// likes tea"). It is called quote, not reason: asked for a reason, small models explain in
// their own words, and only words of the new fact can be checked against it.
type Contradiction struct {
	ID    string `json:"id"`
	Quote string `json:"quote"`
}

// EntityFactsIn is one entity with its facts, for summaries.
type EntityFactsIn struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Facts []string `json:"facts"`
}

// SummarizeInput asks for short summaries of several entities at once.
type SummarizeInput struct {
	Entities []EntityFactsIn `json:"entities"`
}

// EntitySummary is one entity's summary.
type EntitySummary struct {
	ID      string `json:"id"`
	Summary string `json:"summary"`
}

// SummarizeOutput is the answer to SummarizeInput.
type SummarizeOutput struct {
	Summaries []EntitySummary `json:"summaries"`
}

// MergeInput asks to merge summaries of parts of one community into one, in order (at least
// two; stages.community.merge_fan_in at most).
type MergeInput struct {
	Summaries []string `json:"summaries"`
}

// MergeOutput is the merged summary.
type MergeOutput struct {
	Summary string `json:"summary"`
}

// NameInput asks for a one-line name for a community summary.
type NameInput struct {
	Summary string `json:"summary"`
}

// NameOutput is the community name.
type NameOutput struct {
	Name string `json:"name"`
}

// Tasks of two-call extraction, entity resolution and fact de-duplication.
const (
	TaskExtractEntities = "extract_entities" // ExtractInput → EntitiesOutput (two-call extraction, call 1)
	TaskExtractFacts    = "extract_facts"    // FactsInput → FactsOutput (two-call extraction, call 2)
	TaskResolveEntities = "resolve_entities" // ResolveInput → ResolveOutput
	TaskDedupeFacts     = "dedupe_facts"     // DedupeInput → DedupeOutput
)

// AttributeValue is one attribute of an entity's type (EntityTypeIn.Attributes) as an episode
// states it.
type AttributeValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EntityMention is an entity named in an episode, with the attributes of its type that the
// episode states (none for "Entity").
type EntityMention struct {
	Name       string           `json:"name"`
	Type       string           `json:"type"` // a custom type name, or "Entity"
	Attributes []AttributeValue `json:"attributes"`
}

// EntitiesOutput is the answer to ExtractInput under TaskExtractEntities.
type EntitiesOutput struct {
	Entities []EntityMention `json:"entities"`
}

// FactsInput asks for the facts of one episode between the entities already extracted from it.
type FactsInput struct {
	Episode       EpisodeIn         `json:"episode"`
	Previous      []EpisodeIn       `json:"previous"`
	Snapshot      *SnapshotIn       `json:"snapshot,omitempty"`
	Known         []string          `json:"known_facts,omitempty"`
	Entities      []ExtractedEntity `json:"entities"` // the answer of TaskExtractEntities
	EntityTypes   []EntityTypeIn    `json:"entity_types,omitempty"`
	EdgeTypes     []EdgeTypeIn      `json:"edge_types,omitempty"`
	ExcludedTypes []string          `json:"excluded_types,omitempty"`
}

// FactsOutput is the answer to FactsInput.
type FactsOutput struct {
	Facts []ExtractedFact `json:"facts"`
}

// CandidateIn is an entity as the resolution prompt shows it: its id ("N0", "N1"…), name, type,
// other spellings already merged into it and a few facts about it for context.
type CandidateIn struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Aliases []string `json:"aliases,omitempty"`
	Facts   []string `json:"facts,omitempty"`
}

// PairIn is one question "do a and b refer to the same thing?", by the ids of a list.
type PairIn struct {
	ID string `json:"id"` // "P0", "P1"…
	A  string `json:"a"`
	B  string `json:"b"`
}

// ResolveInput asks which pairs of entities of one group name the same real-world entity.
type ResolveInput struct {
	Entities []CandidateIn `json:"entities"`
	Pairs    []PairIn      `json:"pairs"`
}

// ResolveOutput lists the ids of the pairs whose two entities are the same. Unknown ids are
// ignored by the caller.
type ResolveOutput struct {
	Same []string `json:"same_ids"`
}

// DedupeInput asks which pairs of facts between the same two entities state the same thing.
// Facts have ids "F0", "F1"…; pairs name them.
type DedupeInput struct {
	Facts []FactIn `json:"facts"`
	Pairs []PairIn `json:"pairs"`
}

// DedupeOutput lists the ids of the pairs whose two facts are duplicates.
type DedupeOutput struct {
	Duplicates []string `json:"duplicate_ids"`
}
