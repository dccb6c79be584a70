package llm

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

// EpisodeIn is an episode as a prompt shows it.
type EpisodeIn struct {
	ReferenceTime string `json:"reference_time"` // RFC 3339, UTC
	Source        string `json:"source"`         // message|text|json
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

// ExtractInput asks for the entities and facts of one episode.
type ExtractInput struct {
	Episode     EpisodeIn      `json:"episode"`
	Previous    []EpisodeIn    `json:"previous"` // earlier episodes of the group, oldest first
	EntityTypes []EntityTypeIn `json:"entity_types,omitempty"`
	EdgeTypes   []EdgeTypeIn   `json:"edge_types,omitempty"`
}

// ExtractedEntity is one entity named in the episode.
type ExtractedEntity struct {
	Name string `json:"name"`
	Type string `json:"type"` // a custom type name, or "Entity"
}

// ExtractedFact is one statement between two extracted entities.
type ExtractedFact struct {
	Source    string  `json:"source"`    // entity name as in Entities
	Target    string  `json:"target"`    // entity name as in Entities
	Predicate string  `json:"predicate"` // SCREAMING_SNAKE_CASE
	Fact      string  `json:"fact"`      // one sentence, in the episode's language
	ValidAt   *string `json:"valid_at"`  // RFC 3339 or null: when it became true
	InvalidAt *string `json:"invalid_at"`
	// Kind is "state" (an ongoing condition), "event" (happened once), "plan" (a plan, promise,
	// schedule or deadline, true from the day it was said) or "scheduled_state" (a state whose
	// future start is fixed by a schedule, such as a store closed from a given date).
	Kind string `json:"kind"`
}

// ExtractOutput is the answer to ExtractInput.
type ExtractOutput struct {
	Entities []ExtractedEntity `json:"entities"`
	Facts    []ExtractedFact   `json:"facts"`
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

// JudgeOutput lists the ids the new fact duplicates ("E…") and contradicts ("I…"). Malformed or
// unknown ids are ignored by the caller.
type JudgeOutput struct {
	Duplicates     []string `json:"duplicate_ids"`
	Contradictions []string `json:"contradicted_ids"`
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

// MergeInput asks to merge two community summaries into one.
type MergeInput struct {
	A string `json:"summary_a"`
	B string `json:"summary_b"`
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
