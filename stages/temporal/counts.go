package temporal

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/report"
)

// Counts are what the rules and the judge decided for a group (report.Temporal), stored as the
// temporal unit's output and summed over the store's groups for the run report (temporal in the
// report).
type Counts = report.Temporal

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
