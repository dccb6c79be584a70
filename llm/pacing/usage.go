package pacing

import (
	"github.com/tkgraph/backfill/llm/wire"
)

// StageUsage counts the calls of one stage, or of all stages in Usage.Total.
type StageUsage struct {
	Calls            int64   `json:"calls"`      // HTTP requests sent, retries included
	CacheHits        int64   `json:"cache_hits"` // calls answered from the cache, with no request
	PromptTokens     int64   `json:"prompt_tokens"`
	CachedTokens     int64   `json:"cached_prompt_tokens"` // prompt tokens the provider served from its prompt cache
	CompletionTokens int64   `json:"completion_tokens"`    // reasoning tokens included
	ReasoningTokens  int64   `json:"reasoning_tokens"`
	Retries          int64   `json:"retries"`         // requests beyond the first of a call (transient or validation)
	InvalidAnswers   int64   `json:"invalid_answers"` // answers that failed the schema
	Truncated        int64   `json:"truncated"`       // answers cut by max_tokens (finish_reason "length")
	Salvaged         int64   `json:"salvaged"`        // cut answers kept up to their last complete list item (Client.Call)
	MaxInFlight      int64   `json:"max_in_flight"`   // peak requests in flight at once
	CostUSD          float64 `json:"cost_usd"`        // priced usage of the requests sent; cache hits cost 0
	// Cost is CostUSD by kind of token (input, provider-cached input, output).
	Cost Cost `json:"cost"`
}

// Add counts one answer's usage and cost.
func (s *StageUsage) Add(u wire.TokenUsage, cost Cost) {
	s.PromptTokens += int64(u.PromptTokens)
	s.CompletionTokens += int64(u.CompletionTokens)
	if d := u.PromptTokensDetails; d != nil {
		s.CachedTokens += int64(d.CachedTokens)
	}
	if d := u.CompletionTokensDetails; d != nil {
		s.ReasoningTokens += int64(d.ReasoningTokens)
	}
	s.CostUSD += cost.Total()
	s.Cost = s.Cost.Add(cost)
}

// Sum adds o's counters to s; MaxInFlight takes the larger.
func (s *StageUsage) Sum(o StageUsage) {
	s.Calls += o.Calls
	s.CacheHits += o.CacheHits
	s.PromptTokens += o.PromptTokens
	s.CachedTokens += o.CachedTokens
	s.CompletionTokens += o.CompletionTokens
	s.ReasoningTokens += o.ReasoningTokens
	s.Retries += o.Retries
	s.InvalidAnswers += o.InvalidAnswers
	s.Truncated += o.Truncated
	s.Salvaged += o.Salvaged
	s.MaxInFlight = max(s.MaxInFlight, o.MaxInFlight)
	s.CostUSD += o.CostUSD
	s.Cost = s.Cost.Add(o.Cost)
}

// Usage is a snapshot of the counters: totals and per stage.
type Usage struct {
	Total  StageUsage            `json:"total"`
	Stages map[string]StageUsage `json:"stages"`
}
