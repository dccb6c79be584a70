package stages

import (
	"strings"

	"github.com/tkgraph/backfill/llm/wire"
)

// Inputs of ordinary size, from which a plan estimates the prompt of each call after
// extraction (the stages' Estimate builds its tasks' inputs from them).

// TypicalTime is the reference time of the typical inputs.
const TypicalTime = "2024-03-01T09:30:00Z"

// TypicalFact is a fact of ordinary length with id.
func TypicalFact(id string) wire.FactIn {
	at := TypicalTime
	return wire.FactIn{ID: id, Predicate: "WORKS_AT", Fact: "Alice Smith works at Acme Corp as a senior engineer.", ValidAt: &at}
}

// TypicalFactLines are n fact sentences of ordinary length, as an entity's summary input lists
// them.
func TypicalFactLines(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "Alice Smith moved to Busan with her family to start a new job in March."
	}
	return out
}

// TypicalSummary is a summary of ordinary length.
func TypicalSummary() string {
	return strings.Repeat("Alice Smith is a senior engineer at Acme Corp who moved to Busan in March. ", 4)
}
