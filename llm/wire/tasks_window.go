package wire

import "reflect"

// TaskExtractWindow asks for the entities and facts of a window of consecutive episodes of one
// group in one call (stages.extract.window): WindowInput → WindowOutput.
const TaskExtractWindow = "extract_window"

// WindowEpisodeIn is one numbered episode of a window. ReferenceTime and Source are left out
// when they equal those of the episode before it in the window (the first has both).
type WindowEpisodeIn struct {
	N             int    `json:"n"` // 1, 2, … in window order: what an answer lists facts under (EpisodeFacts.N)
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

// WindowFact is one statement of a window with the numbers of the episodes that state it: how
// stages/extract shares a window's answer among its episodes (WindowOutput.Cited).
type WindowFact struct {
	Cites []int
	ExtractedFact
}

// EpisodeFacts are the facts one numbered episode of a window states: an answer walks the
// window episode by episode, which a small model follows better than citing numbers in one
// list of facts (bench/results.md, window).
type EpisodeFacts struct {
	N     int             `json:"n"`
	Facts []ExtractedFact `json:"facts"`
}

// WindowOutput is the answer to WindowInput: the entities of the whole window, each once, then
// the facts of each episode under its number. Its field is "facts_by_episode", not "episodes",
// since no answer field shares a name with an input field.
type WindowOutput struct {
	Entities []EntityMention `json:"entities"`
	Episodes []EpisodeFacts  `json:"facts_by_episode"`
}

// Cited lists the answer's facts, each citing the episode it was listed under.
func (o WindowOutput) Cited() []WindowFact {
	var out []WindowFact
	for _, e := range o.Episodes {
		for _, f := range e.Facts {
			out = append(out, WindowFact{Cites: []int{e.N}, ExtractedFact: f})
		}
	}
	return out
}

// windowTaskTypes pairs TaskExtractWindow with its input and output types; taskTypes includes it.
func windowTaskTypes() map[string][2]reflect.Type {
	return map[string][2]reflect.Type{
		TaskExtractWindow: {reflect.TypeFor[WindowInput](), reflect.TypeFor[WindowOutput]()},
	}
}
