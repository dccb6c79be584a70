package stages

import (
	"maps"
	"slices"
	"sync"
)

// Tally counts events by stage and kind, such as the answer repairs of a stage
// (llm.answers_repaired in the report). It is safe for concurrent use; a nil Tally counts
// nothing.
type Tally struct {
	mu sync.Mutex
	n  map[string]map[string]int
}

// NewTally returns an empty Tally.
func NewTally() *Tally { return &Tally{n: map[string]map[string]int{}} }

// Add counts n events of kind in stage.
func (t *Tally) Add(stage, kind string, n int) {
	if t == nil || n == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[stage] == nil {
		t.n[stage] = map[string]int{}
	}
	t.n[stage][kind] += n
}

// AddAll counts every kind of counts in stage.
func (t *Tally) AddAll(stage string, counts map[string]int) {
	for k, n := range counts {
		t.Add(stage, k, n)
	}
}

// Stage returns a copy of the counts of one stage by kind (nil when none).
func (t *Tally) Stage(stage string) map[string]int {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return maps.Clone(t.n[stage])
}

// Total returns the counts by kind summed over the stages (nil when none).
func (t *Tally) Total() map[string]int {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var out map[string]int
	for _, kinds := range t.n {
		for k, n := range kinds {
			if out == nil {
				out = map[string]int{}
			}
			out[k] += n
		}
	}
	return out
}

// Stages lists the stages with counts.
func (t *Tally) Stages() []string {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.n))
}
