package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tkgraph/backfill/checkpoints"
	"github.com/tkgraph/backfill/internal/safefile"
	"github.com/tkgraph/backfill/report"
	"github.com/tkgraph/backfill/stages"
)

// FailedFile is the JSON Lines file, next to the checkpoint store, that lists the units recorded
// as failed (checkpoints.FailedUnit: stage, unit, group, reason, raw answer). It is rewritten at
// the end of every run, so it lists what the next run will retry.
func FailedFile(checkpoint string) string { return checkpoint + ".failed.jsonl" }

// writeFailed writes FailedFile from the store and counts the failed units in the report: all
// of them, and the extraction units among them (episodes that have no extraction downstream).
func writeFailed(ctx context.Context, store *checkpoints.Store, rep *report.Report) error {
	f, err := safefile.Create(FailedFile(store.Path()))
	if err != nil {
		return fmt.Errorf("writing failed units: %w", err)
	}
	defer f.Abort()
	rep.FailedUnits, rep.EpisodesWithoutExtraction = 0, 0
	err = store.EachFailedUnit(ctx, func(u checkpoints.FailedUnit) error {
		rep.FailedUnits++
		if u.Stage == stages.Extract {
			rep.EpisodesWithoutExtraction++
		}
		line, err := json.Marshal(u)
		if err != nil {
			return err
		}
		_, err = f.Write(append(line, '\n'))
		return err
	})
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		return fmt.Errorf("writing failed units: %w", err)
	}
	return nil
}
