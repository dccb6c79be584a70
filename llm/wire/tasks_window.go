package wire

import "reflect"

// TaskExtractWindow asks for the entities and facts of a window of consecutive episodes of one
// group in one call (stages.extract.window): WindowInput → WindowOutput.
const TaskExtractWindow = "extract_window"

// WindowEpisodeIn is one numbered episode of a window. ReferenceTime and Source are left out
// when they equal those of the episode before it in the window (the first has both).
type WindowEpisodeIn struct {
	N             int    `json:"n"` // 1, 2, … in window order: what a fact's Cites name
	ReferenceTime string `json:"reference_time,omitempty"`
	Source        string `json:"source,omitempty"`
	Speaker       string `json:"speaker,omitempty"`
	Content       string `json:"content"`
}

// WindowInput asks for the entities and facts of several consecutive episodes of one group. Its
// JSON writes the ontology first (the same for every call of a job), then the context, then the
// numbered episodes: the rendered prompt's static part (system message, user instruction,
// ontology) comes first and is byte-identical across calls, so a provider's prefix cache can
// keep it.
type WindowInput struct {
	EntityTypes   []EntityTypeIn `json:"entity_types,omitempty"`
	EdgeTypes     []EdgeTypeIn   `json:"edge_types,omitempty"`
	ExcludedTypes []string       `json:"excluded_types,omitempty"`
	// Previous are earlier episodes of the group before the window, oldest first, as context
	// only; they leave out the reference time and source they share with the first episode.
	Previous []EpisodeIn       `json:"previous"`
	Episodes []WindowEpisodeIn `json:"episodes"`
}

// WindowFact is one statement of a window: an ExtractedFact that cites the numbers of the
// episodes that state it. Its endpoints are "subject" and "object", like ExtractedFact's; its
// citations are "cites", not "episodes", since no answer field shares a name with an input field.
type WindowFact struct {
	Cites     []int   `json:"cites"`
	Source    string  `json:"subject"`
	Target    string  `json:"object"`
	Predicate string  `json:"predicate"`
	Fact      string  `json:"fact"`
	ValidAt   *string `json:"valid_at"`
	InvalidAt *string `json:"invalid_at"`
	Kind      string  `json:"kind"`
}

// Extracted is the fact without its citations.
func (f WindowFact) Extracted() ExtractedFact {
	return ExtractedFact{Source: f.Source, Target: f.Target, Predicate: f.Predicate, Fact: f.Fact,
		ValidAt: f.ValidAt, InvalidAt: f.InvalidAt, Kind: f.Kind}
}

// WindowOutput is the answer to WindowInput: the entities of the whole window, each once, and
// the facts, each citing its episodes.
type WindowOutput struct {
	Entities []EntityMention `json:"entities"`
	Facts    []WindowFact    `json:"facts"`
}

// windowTaskTypes pairs TaskExtractWindow with its input and output types; taskTypes includes it.
func windowTaskTypes() map[string][2]reflect.Type {
	return map[string][2]reflect.Type{
		TaskExtractWindow: {reflect.TypeFor[WindowInput](), reflect.TypeFor[WindowOutput]()},
	}
}
