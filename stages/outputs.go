package stages

import (
	"time"

	"github.com/tkgraph/backfill/graph"
	"github.com/tkgraph/backfill/llm/wire"
)

// The outputs of the stages that later stages read, as the store holds them (JSON): stage
// packages do not import each other, so what one writes and the next reads lives here.

// Extraction is the extract stage's stored output of one episode: wire.ExtractOutput
// (JSON-compatible with it, so both decode into Extraction), with a record's object and declared
// facts.
type Extraction struct {
	Entities []wire.EntityMention `json:"entities"`
	Facts    []wire.ExtractedFact `json:"facts"`
	// Object and Declared are the object and declared facts of a JSON record (graph.Record),
	// so that an extraction holds every statement of its episode; absent for other episodes.
	Object   string              `json:"object,omitempty"`
	Declared []graph.Declaration `json:"declared,omitempty"`
	// Quoted cites the facts whose sentence repeats a previous episode of the context rather
	// than this one to that episode (repairer.cite), in fact order; absent when none does.
	Quoted []Quote `json:"quoted,omitempty"`
}

// Quote cites Extraction.Facts[Fact] to the episode Back positions before the extracted one in its
// group (1: the one just before): the previous episode of the extraction input whose words the
// fact's sentence repeats (repairer.cite). The resolve stage gives the fact that episode: its
// episodes list, reference time and place in the group order.
type Quote struct {
	Fact int `json:"fact"`
	Back int `json:"back"`
}

// ResolvedFact is the resolve stage's output: a resolved, de-duplicated fact of a group, before
// the temporal stage's rules apply.
type ResolvedFact struct {
	UUID          string     `json:"uuid"`
	Source        string     `json:"source"` // entity uuid
	Target        string     `json:"target"` // entity uuid
	Predicate     string     `json:"predicate"`
	Fact          string     `json:"fact"`
	Kind          string     `json:"kind"`
	ValidAt       *time.Time `json:"valid_at"`
	InvalidAt     *time.Time `json:"invalid_at"`
	Episodes      []string   `json:"episodes"` // the creating episode first
	ReferenceTime time.Time  `json:"reference_time"`
	RecordTime    time.Time  `json:"record_time"`
	Order         int        `json:"order"` // position of the creating episode in the group
	// Declared marks a fact of record fields (sources[].facts): never judged by the LLM; a
	// state fact is closed by the later snapshots that no longer show it (Closures, in group
	// order).
	Declared bool      `json:"declared,omitempty"`
	Closures []Closure `json:"closures,omitempty"`
}

// Closure is a snapshot that closes a declared state fact: a later snapshot of the same object
// that no longer shows it. The temporal stage closes the fact at At (invalid_at), known from
// RecordTime on (expired_at); of several closures the earliest known one wins.
type Closure struct {
	Episode    string    `json:"episode"`
	At         time.Time `json:"at"`          // the closing snapshot's reference time
	RecordTime time.Time `json:"record_time"` // the closing snapshot's record time
}
