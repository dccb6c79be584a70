package llm

import "sync"

// StageUsage counts the calls of one stage, or of all stages in Usage.Total.
type StageUsage struct {
	Calls            int64 `json:"calls"`      // HTTP requests sent, retries included
	CacheHits        int64 `json:"cache_hits"` // calls answered from the cache, with no request
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"` // reasoning tokens included
	ReasoningTokens  int64 `json:"reasoning_tokens"`
	Retries          int64 `json:"retries"`         // requests beyond the first of a call (transient or validation)
	InvalidAnswers   int64 `json:"invalid_answers"` // answers that failed the schema
	MaxInFlight      int64 `json:"max_in_flight"`   // peak requests in flight at once
}

// Usage is a snapshot of the counters: totals and per stage.
type Usage struct {
	Total  StageUsage            `json:"total"`
	Stages map[string]StageUsage `json:"stages"`
}

// meter accumulates usage per stage; safe for concurrent use.
type meter struct {
	mu       sync.Mutex
	stages   map[string]*StageUsage
	inFlight map[string]int64
}

func newMeter() *meter {
	return &meter{stages: map[string]*StageUsage{}, inFlight: map[string]int64{}}
}

// update applies f to the stage's counters under the lock.
func (m *meter) update(stage string, f func(*StageUsage)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.stages[stage]
	if !ok {
		s = &StageUsage{}
		m.stages[stage] = s
	}
	f(s)
}

// track returns the Poster callback of a stage: it counts each request and its peak in flight.
func (m *meter) track(stage string) func(int) {
	return func(delta int) {
		m.update(stage, func(s *StageUsage) {
			m.inFlight[stage] += int64(delta)
			if delta > 0 {
				s.Calls++
				s.MaxInFlight = max(s.MaxInFlight, m.inFlight[stage])
			}
		})
	}
}

// snapshot copies the counters; Total sums the stages and takes peak as its MaxInFlight.
func (m *meter) snapshot(peak int) Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := Usage{Stages: make(map[string]StageUsage, len(m.stages))}
	for name, sp := range m.stages { // sums do not depend on the order
		s := *sp
		u.Stages[name] = s
		u.Total.Calls += s.Calls
		u.Total.CacheHits += s.CacheHits
		u.Total.PromptTokens += s.PromptTokens
		u.Total.CompletionTokens += s.CompletionTokens
		u.Total.ReasoningTokens += s.ReasoningTokens
		u.Total.Retries += s.Retries
		u.Total.InvalidAnswers += s.InvalidAnswers
	}
	u.Total.MaxInFlight = int64(peak)
	return u
}
