package llm

import (
	"slices"
	"sync"

	"github.com/tkgraph/backfill/llm/calls"
	"github.com/tkgraph/backfill/llm/pacing"
)

// meter accumulates usage per stage; safe for concurrent use. Every change goes through
// update, which hands it to the observer too.
type meter struct {
	mu       sync.Mutex
	stages   map[string]*pacing.StageUsage
	inFlight map[string]int64
	obs      calls.Observer // nil: none
}

func newMeter() *meter {
	return &meter{stages: map[string]*pacing.StageUsage{}, inFlight: map[string]int64{}}
}

// observe hands every later change to o.
func (m *meter) observe(o calls.Observer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.obs = o
}

// update applies f to the stage's counters under the lock; the observer receives the change
// (f applied to zero counters) with the task it counts for. f only adds to the counters (or
// raises MaxInFlight).
func (m *meter) update(stage, task string, f func(*pacing.StageUsage)) {
	m.mu.Lock()
	s, ok := m.stages[stage]
	if !ok {
		s = &pacing.StageUsage{}
		m.stages[stage] = s
	}
	f(s)
	obs := m.obs
	m.mu.Unlock()
	if obs != nil {
		var d pacing.StageUsage
		f(&d)
		obs.Counted(stage, task, d)
	}
}

// track returns the Poster callback of a stage's task: it counts each request and its peak in
// flight.
func (m *meter) track(stage, task string) func(int) {
	return func(delta int) {
		m.mu.Lock()
		m.inFlight[stage] += int64(delta)
		n := m.inFlight[stage]
		m.mu.Unlock()
		if delta > 0 {
			m.update(stage, task, func(s *pacing.StageUsage) {
				s.Calls++
				s.MaxInFlight = max(s.MaxInFlight, n)
			})
		}
	}
}

// snapshot copies the counters; Total sums the stages and takes peak as its MaxInFlight.
func (m *meter) snapshot(peak int) pacing.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := pacing.Usage{Stages: make(map[string]pacing.StageUsage, len(m.stages))}
	names := make([]string, 0, len(m.stages))
	for name := range m.stages {
		names = append(names, name)
	}
	slices.Sort(names) // float sums in a fixed order
	for _, name := range names {
		s := *m.stages[name]
		u.Stages[name] = s
		u.Total.Sum(s)
	}
	u.Total.MaxInFlight = int64(peak)
	return u
}
