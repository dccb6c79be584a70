package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
)

// Counts are what the rules and the judge decided for a group, stored as the temporal unit's
// output and summed over the store's groups for the run report (temporal in the report).
type Counts struct {
	// Judged counts the facts sent to the judge (one judge_fact call each, cache hits
	// included); JudgeCallsSaved the facts that had contradiction candidates under the endpoint
	// rule but needed no judgement, every candidate settled by cardinality or excluded by it.
	Judged          int `json:"judged"`
	JudgeCallsSaved int `json:"judge_calls_saved"`
	// ByCardinality counts the contradicting pairs of a relation of cardinality one (no LLM);
	// JudgedApplied the judge's contradictions that passed the checks. A contradicting pair
	// closes a fact only under the time rules (the later-started fact wins; none when a start is
	// unknown or the intervals do not overlap).
	ByCardinality int `json:"contradictions_by_cardinality"`
	JudgedApplied int `json:"contradictions_judged"`
	// ClosuresRejected counts the judge's contradictions not applied, by reason (Reject…).
	ClosuresRejected map[string]int `json:"closures_rejected,omitempty"`
	// JudgementsFailed counts the judgements whose answer stayed bad (they decide nothing; the
	// group is recorded failed and judged again on the next run).
	JudgementsFailed int `json:"judgements_failed,omitempty"`
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Judged += o.Judged
	c.JudgeCallsSaved += o.JudgeCallsSaved
	c.ByCardinality += o.ByCardinality
	c.JudgedApplied += o.JudgedApplied
	c.JudgementsFailed += o.JudgementsFailed
	for k, n := range o.ClosuresRejected {
		if c.ClosuresRejected == nil {
			c.ClosuresRejected = map[string]int{}
		}
		c.ClosuresRejected[k] += n
	}
}

// Rejected is the number of rejected closures over all reasons.
func (c Counts) Rejected() int {
	n := 0
	for _, k := range c.ClosuresRejected {
		n += k
	}
	return n
}

// Totals sums the counts of every group of the store whose temporal unit recorded them (groups
// written before the counts existed add nothing). ok is false when none did.
func Totals(ctx context.Context, store *checkpoints.Store) (total Counts, ok bool, err error) {
	groups, err := store.Groups(ctx)
	if err != nil {
		return Counts{}, false, err
	}
	for _, g := range groups {
		body, found, err := store.Output(ctx, Stage, g)
		if err != nil {
			return Counts{}, false, err
		}
		if !found {
			continue
		}
		var c Counts
		if err := json.Unmarshal(body, &c); err != nil {
			return Counts{}, false, fmt.Errorf("reading the temporal counts of %s: %w", g, err)
		}
		total.Add(c)
		ok = true
	}
	return total, ok, nil
}
