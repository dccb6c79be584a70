package graphdiff

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/snapshots"
)

// Usage is the LLM work of the runs that built one side, from the runs table of its checkpoint
// store (every run that opened the store records its report there): in total over the runs, and
// for the last one. A Parquet export records no runs.
type Usage struct {
	Runs        int        `json:"runs"`
	LastOutcome string     `json:"last_outcome"`
	Total       report.LLM `json:"total"`
	Last        report.LLM `json:"last"`
	// Temporal is the temporal stage's counts in the last run's report (over the whole graph:
	// judge calls, contradictions, closures rejected by reason); nil when it has none.
	Temporal *report.Temporal `json:"temporal,omitempty"`
}

func usageOf(ctx context.Context, s snapshots.Snapshot) (*Usage, error) {
	runs, err := s.Runs(ctx)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	u := &Usage{Runs: len(runs)}
	for i, r := range runs {
		var rep report.Report
		if err := json.Unmarshal([]byte(r.Report), &rep); err != nil {
			return nil, fmt.Errorf("reading run %d of %s: %w", r.Seq, s.Describe(), err)
		}
		l := rep.LLM
		u.Total.Calls += l.Calls
		u.Total.CacheHits += l.CacheHits
		u.Total.PromptTokens += l.PromptTokens
		u.Total.CompletionTokens += l.CompletionTokens
		u.Total.ReasoningTokens += l.ReasoningTokens
		u.Total.Retries += l.Retries
		u.Total.CostUSD += l.CostUSD
		u.Total.MaxInFlight = max(u.Total.MaxInFlight, l.MaxInFlight)
		if i == len(runs)-1 {
			u.Last, u.LastOutcome, u.Temporal = l, r.Outcome, rep.Temporal
		}
	}
	return u, nil
}
