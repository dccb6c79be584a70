package wire

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

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

// windowGrammarVariant names the grammar WindowGrammar writes; TaskVersion and the cache keys
// of grammar requests carry it, so answers asked with another grammar are not reused.
const windowGrammarVariant = "extract_window:numbered-episodes"

// WindowGrammar is the grammar of an extract_window answer for a window of k episodes: the
// task's compact grammar (Schema.GBNF) with "facts_by_episode" fixed to k entries, n = 1 … k
// in order, each with its own list of facts. With the free list the task's schema allows, the
// 1.5B model listed a window's facts under one episode in 15 of the gold set's 16 windows of two
// or more; with this grammar it listed them under at least two in all 16 (bench/results.md,
// issue-43-grammar, "Windows with numbered episodes").
func WindowGrammar(t *Task, k int) (string, error) {
	if t.Name != TaskExtractWindow {
		return "", fmt.Errorf("writing a window grammar for task %s", t.Name)
	}
	if k < 1 {
		return "", fmt.Errorf("writing the grammar of %s: a window of %d episodes", t.Name, k)
	}
	g := &gbnf{names: map[string]string{}}
	root, err := g.members(t.Schema.Properties, "{", map[string]func(*Schema) ([]string, error){
		"facts_by_episode": func(s *Schema) ([]string, error) { return g.numberedEntries(s, k) }})
	if err != nil {
		return "", fmt.Errorf("writing the grammar of %s: %w", t.Name, err)
	}
	return g.write(t.Name, strings.Join(append(root, `"}"`), " ")), nil
}

// numberedEntries writes the k entries of an array of {"n": integer, …} objects as a fixed
// sequence, the n-th with "n" set to n and its other properties by their rules.
func (g *gbnf) numberedEntries(s *Schema, k int) ([]string, error) {
	if s == nil || s.Items == nil || len(s.Items.Properties) == 0 || s.Items.Properties[0].Name != "n" {
		return nil, fmt.Errorf("facts_by_episode: not a list of numbered objects")
	}
	rest, err := g.members(s.Items.Properties[1:], ",", nil)
	if err != nil {
		return nil, err
	}
	out := []string{`"["`}
	for n := 1; n <= k; n++ {
		open := `{"n":` + strconv.Itoa(n)
		if n > 1 {
			open = "," + open
		}
		out = append(out, gbnfLiteral(open))
		out = append(out, rest...)
		out = append(out, `"}"`)
	}
	return append(out, `"]"`), nil
}
