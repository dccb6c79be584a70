package llm

import (
	"slices"
	"sync"

	"github.com/tkgraph/backfill/llm/pacing"
)

// meter accumulates usage per stage; safe for concurrent use.
type meter struct {
	mu       sync.Mutex
	stages   map[string]*pacing.StageUsage
	inFlight map[string]int64
}

func newMeter() *meter {
	return &meter{stages: map[string]*pacing.StageUsage{}, inFlight: map[string]int64{}}
}

// update applies f to the stage's counters under the lock.
func (m *meter) update(stage string, f func(*pacing.StageUsage)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.stages[stage]
	if !ok {
		s = &pacing.StageUsage{}
		m.stages[stage] = s
	}
	f(s)
}

// track returns the Poster callback of a stage: it counts each request and its peak in flight.
func (m *meter) track(stage string) func(int) {
	return func(delta int) {
		m.update(stage, func(s *pacing.StageUsage) {
			m.inFlight[stage] += int64(delta)
			if delta > 0 {
				s.Calls++
				s.MaxInFlight = max(s.MaxInFlight, m.inFlight[stage])
			}
		})
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
